package io.streamhouse.connect.table.iceberg;

/**
 * Snapshot summary keys the connector writes, namespaced by connector name so that several
 * connectors can feed one table. Documented in the README.
 */
final class SnapshotKeys {
  static final String PREFIX = "streamhouse.";

  private final String watermarks;
  private final String commitId;
  private final String validThrough;

  SnapshotKeys(String connector) {
    String base = PREFIX + connector + ".";
    this.watermarks = base + "watermarks";
    this.commitId = base + "commit-id";
    this.validThrough = base + "valid-through-ms";
  }

  /** {@code streamhouse.<connector>.watermarks}: {@code topic:partition=next-offset,...}. */
  String watermarks() {
    return watermarks;
  }

  /** {@code streamhouse.<connector>.commit-id}: the coordinator's commit id (a long). */
  String commitId() {
    return commitId;
  }

  /**
   * {@code streamhouse.<connector>.valid-through-ms}: on a full commit round, every record with a
   * timestamp at or before this (epoch ms) of every partition that fed the commit is in the table.
   */
  String validThrough() {
    return validThrough;
  }
}
