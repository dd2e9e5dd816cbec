package io.streamhouse.connect.monitor;

/**
 * The sink's position in one topic-partition against what Kafka still holds.
 *
 * @param records records not yet in the tables: log end minus committed offset (0 when caught up)
 * @param seconds age of the oldest record not yet in the tables (0 when caught up)
 * @param timeRatio {@code seconds} as a share of {@code retention.ms}; 0 when nothing is deleted by
 *     age
 * @param sizeRatio bytes behind as a share of {@code retention.bytes}; 0 when nothing is deleted by
 *     size
 * @param secondsToLoss how long until Kafka may delete the oldest record not yet in the tables
 *     (time-based; {@link Double#POSITIVE_INFINITY} when nothing is deleted by age or nothing lags)
 * @param lostRecords records deleted before the sink read them: log start minus committed, or 0
 */
public record PartitionLag(
    long records,
    double seconds,
    double timeRatio,
    double sizeRatio,
    double secondsToLoss,
    long lostRecords) {}
