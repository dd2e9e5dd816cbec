package io.streamhouse.connect.protocol;

/**
 * One unit of table maintenance the coordinator hands to a task: {@code key} names what it works on
 * (for a Paimon table, one bucket), so that the coordinator never has two jobs on one key out at
 * once; {@code spec} is the format's own description of the job, read only by that format.
 */
public record CompactionJob(String key, byte[] spec) {}
