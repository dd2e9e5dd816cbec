package io.streamhouse.connect.monitor;

import java.util.Arrays;
import java.util.List;

/**
 * What a topic keeps: {@code retention.ms} and {@code retention.bytes} (-1 = unlimited) and {@code
 * cleanup.policy}. Only the {@code delete} policy removes records by age or size; a compact-only
 * topic keeps the latest record of every key however far behind a sink is.
 */
public record TopicRetention(long retentionMs, long retentionBytes, List<String> cleanupPolicy) {
  public static TopicRetention of(String retentionMs, String retentionBytes, String cleanupPolicy) {
    return new TopicRetention(
        Long.parseLong(retentionMs),
        Long.parseLong(retentionBytes),
        Arrays.stream(cleanupPolicy.split(",")).map(String::trim).toList());
  }

  /** True when old records are deleted (policy {@code delete} or {@code compact,delete}). */
  public boolean deletes() {
    return cleanupPolicy.contains("delete");
  }

  /** True when records older than {@link #retentionMs} are deleted. */
  public boolean deletesByTime() {
    return deletes() && retentionMs >= 0;
  }

  /** True when a partition larger than {@link #retentionBytes} loses its oldest segments. */
  public boolean deletesBySize() {
    return deletes() && retentionBytes >= 0;
  }
}
