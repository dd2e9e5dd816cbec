package io.streamhouse.connect.protocol;

/** Kafka offsets {@code [from, to)} of one topic-partition in a batch; {@code from < to}. */
public record OffsetRange(long from, long to) {
  public OffsetRange {
    if (from < 0 || to <= from) {
      throw new IllegalArgumentException("Invalid offset range [" + from + ", " + to + ")");
    }
  }

  @Override
  public String toString() {
    return "[" + from + "," + to + ")";
  }
}
