package io.streamhouse.connect.monitor;

/**
 * Lag against retention for one partition, from the facts the monitor reads: log start and end
 * offsets, the sink's committed offset, the timestamp of the oldest record not yet committed, the
 * partition's size and the topic's retention. Pure: the caller supplies the clock.
 *
 * <p>The time-based figures are a lower bound: the broker deletes a closed segment only when its
 * newest record is older than {@code retention.ms}, checked every {@code
 * log.retention.check.interval.ms}; records may survive longer, never shorter (with monotonic
 * record timestamps). Size-based retention approximates the bytes behind by the average record size
 * of the partition.
 */
public final class LagArithmetic {
  private LagArithmetic() {}

  /**
   * @param oldestUnsyncedTimestampMs timestamp of the record at the committed offset; negative when
   *     unknown (nothing lags, or the record could not be read)
   * @param partitionBytes bytes the partition holds on the broker; negative when unknown
   */
  public static PartitionLag of(
      long logStart,
      long logEnd,
      long committed,
      long oldestUnsyncedTimestampMs,
      long partitionBytes,
      TopicRetention retention,
      long nowMs) {
    long lost = Math.max(0, logStart - committed);
    long position = Math.max(committed, logStart);
    long records = Math.max(0, logEnd - position);
    double seconds =
        records > 0 && oldestUnsyncedTimestampMs >= 0
            ? Math.max(0, nowMs - oldestUnsyncedTimestampMs) / 1000.0
            : 0;
    double timeRatio =
        retention.deletesByTime() && retention.retentionMs() > 0
            ? seconds * 1000.0 / retention.retentionMs()
            : 0;
    double secondsToLoss =
        retention.deletesByTime() && records > 0
            ? Math.max(0, retention.retentionMs() / 1000.0 - seconds)
            : Double.POSITIVE_INFINITY;
    double sizeRatio = 0;
    long held = logEnd - logStart;
    if (retention.deletesBySize()
        && retention.retentionBytes() > 0
        && partitionBytes >= 0
        && held > 0) {
      double bytesBehind = (double) partitionBytes * records / held;
      sizeRatio = bytesBehind / retention.retentionBytes();
    }
    return new PartitionLag(records, seconds, timeRatio, sizeRatio, secondsToLoss, lost);
  }
}
