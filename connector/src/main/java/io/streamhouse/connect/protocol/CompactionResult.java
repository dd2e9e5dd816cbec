package io.streamhouse.connect.protocol;

/**
 * What a task made of a compaction job: the job's id, the task that ran it, and the files it merged
 * and wrote (a format's own encoding), for the coordinator to commit. Unlike an {@link
 * OfferedBatch} it holds no records of Kafka and so no offsets.
 */
public record CompactionResult(String jobId, int taskId, PreparedFiles files) {}
