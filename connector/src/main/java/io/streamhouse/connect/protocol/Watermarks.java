package io.streamhouse.connect.protocol;

import java.util.Collections;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code wm(T, tp)}: for one table, the next Kafka offset of each topic-partition that the table
 * has not seen. Stored in every snapshot the connector commits, as {@code topic:partition=offset}
 * pairs separated by commas (topic names cannot contain ':' or ',').
 */
public final class Watermarks {
  public static final Watermarks EMPTY = new Watermarks(Map.of());

  private final Map<TopicPartition, Long> next;

  private Watermarks(Map<TopicPartition, Long> next) {
    TreeMap<TopicPartition, Long> sorted = new TreeMap<>(Watermarks::compare);
    sorted.putAll(next);
    this.next = Collections.unmodifiableMap(sorted);
  }

  public static Watermarks of(Map<TopicPartition, Long> next) {
    return new Watermarks(next);
  }

  /** The watermark of {@code tp}; empty if the table never received data from it. */
  public OptionalLong of(TopicPartition tp) {
    Long value = next.get(tp);
    return value == null ? OptionalLong.empty() : OptionalLong.of(value);
  }

  public Map<TopicPartition, Long> asMap() {
    return next;
  }

  public String encode() {
    StringBuilder out = new StringBuilder();
    next.forEach(
        (tp, offset) -> {
          if (out.length() > 0) {
            out.append(',');
          }
          out.append(tp.topic()).append(':').append(tp.partition()).append('=').append(offset);
        });
    return out.toString();
  }

  public static Watermarks decode(String encoded) {
    if (encoded == null || encoded.isBlank()) {
      return EMPTY;
    }
    Map<TopicPartition, Long> next = new TreeMap<>(Watermarks::compare);
    for (String pair : encoded.split(",")) {
      int colon = pair.lastIndexOf(':');
      int eq = pair.lastIndexOf('=');
      if (colon <= 0 || eq < colon) {
        throw new IllegalArgumentException(
            "Malformed watermark '" + pair + "' in '" + encoded + "'");
      }
      next.put(
          new TopicPartition(
              pair.substring(0, colon), Integer.parseInt(pair.substring(colon + 1, eq))),
          Long.parseLong(pair.substring(eq + 1)));
    }
    return new Watermarks(next);
  }

  static int compare(TopicPartition a, TopicPartition b) {
    int byTopic = a.topic().compareTo(b.topic());
    return byTopic != 0 ? byTopic : Integer.compare(a.partition(), b.partition());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Watermarks w && w.next.equals(next);
  }

  @Override
  public int hashCode() {
    return next.hashCode();
  }

  @Override
  public String toString() {
    return "{" + encode() + "}";
  }
}
