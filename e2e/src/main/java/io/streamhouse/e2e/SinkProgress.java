package io.streamhouse.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/** What a sink connector has consumed: end offsets of its topics, and what its tasks reported. */
public final class SinkProgress {
  private static final Pattern RECEIVED =
      Pattern.compile("\\[([^|\\[\\]]+)\\|task-(\\d+)\\] Received (\\d+) records in total");

  private SinkProgress() {}

  /** The log end offset of every partition of {@code topic}. */
  public static Map<TopicPartition, Long> endOffsets(Admin admin, String topic) {
    try {
      int partitions =
          admin
              .describeTopics(java.util.List.of(topic))
              .allTopicNames()
              .get()
              .get(topic)
              .partitions()
              .size();
      Map<TopicPartition, OffsetSpec> request = new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        request.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      Map<TopicPartition, Long> ends = new TreeMap<>(SinkProgress::compare);
      admin.listOffsets(request).all().get().forEach((tp, info) -> ends.put(tp, info.offset()));
      return ends;
    } catch (Exception e) {
      throw new IllegalStateException("Cannot read end offsets of " + topic + ": " + e, e);
    }
  }

  /**
   * The number of records the connector's tasks reported as received, from the last report of each
   * task in a worker log ({@code Task NAME-ID received N records in total}).
   */
  public static long reportedReceived(Path workerLog, String connector) {
    Map<Integer, Long> perTask = new HashMap<>();
    try (Stream<String> lines = Files.lines(workerLog, StandardCharsets.UTF_8)) {
      lines.forEach(
          line -> {
            Matcher m = RECEIVED.matcher(line);
            if (m.find() && m.group(1).equals(connector)) {
              perTask.put(Integer.parseInt(m.group(2)), Long.parseLong(m.group(3)));
            }
          });
    } catch (IOException | UncheckedIOException e) {
      throw new IllegalStateException("Cannot read " + workerLog + ": " + e, e);
    }
    return perTask.values().stream().mapToLong(Long::longValue).sum();
  }

  static int compare(TopicPartition a, TopicPartition b) {
    int byTopic = a.topic().compareTo(b.topic());
    return byTopic != 0 ? byTopic : Integer.compare(a.partition(), b.partition());
  }
}
