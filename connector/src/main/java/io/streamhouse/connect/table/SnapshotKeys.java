package io.streamhouse.connect.table;

import java.util.Map;

/**
 * Snapshot keys the connector writes (Iceberg snapshot summary, Paimon snapshot properties),
 * namespaced by connector name so that several connectors can feed one table. Documented in
 * docs/architecture.md, "Snapshot summary keys".
 */
public final class SnapshotKeys {
  public static final String PREFIX = "streamhouse.";

  private final String watermarks;
  private final String commitId;
  private final String validThrough;
  private final String tag;
  private final String apacheTakeOver;
  private final String apacheOffsetsSuffix;
  private final String keyWriters;
  private final String rewriteMap;

  public SnapshotKeys(String connector) {
    String base = PREFIX + connector + ".";
    this.watermarks = base + "watermarks";
    this.commitId = base + "commit-id";
    this.validThrough = base + "valid-through-ms";
    this.keyWriters = base + "key-writers";
    this.rewriteMap = base + "rewrite-map";
    this.tag = "streamhouse-" + connector;
    // written before the take-over was called so: tables carry this name
    this.apacheTakeOver = base + "apache-handover";
    this.apacheOffsetsSuffix = ".connect-" + connector;
  }

  /**
   * Whether {@code summary} is that of a commit by the Apache Iceberg sink running under this
   * connector's name (its {@code kafka.connect.offsets.<control-topic>.connect-<name>} key, which a
   * take-over snapshot also carries, together with {@code kafka.connect.commit-id}, which it does
   * not): it consumed from the same consumer group, so the connector's older watermarks no longer
   * say where the table continues.
   */
  public boolean isApacheSinkCommitOfThisName(Map<String, String> summary) {
    if (summary == null || !summary.containsKey("kafka.connect.commit-id")) {
      return false;
    }
    for (String key : summary.keySet()) {
      if (key.startsWith("kafka.connect.offsets.") && key.endsWith(apacheOffsetsSuffix)) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code streamhouse-<connector>}: the Iceberg tag on the connector's latest snapshot, moved in
   * the same commit that makes it, so that snapshot expiry (the connector's or anyone's) keeps the
   * snapshot with the connector's watermarks.
   */
  public String tag() {
    return tag;
  }

  /** {@code streamhouse.<connector>.watermarks}: {@code topic:partition=next-offset,...}. */
  public String watermarks() {
    return watermarks;
  }

  /** {@code streamhouse.<connector>.commit-id}: the coordinator's commit id (a long). */
  public String commitId() {
    return commitId;
  }

  /**
   * {@code streamhouse.<connector>.valid-through-ms}: on a full commit round, every record with a
   * timestamp at or before this (epoch ms) of every partition that fed the commit is in the table.
   */
  public String validThrough() {
    return validThrough;
  }

  /**
   * {@code streamhouse.<connector>.apache-handover}: on the snapshot of the take-over from the
   * Apache Iceberg sink, which committed the files that sink had reported but not committed, the
   * Apache commit ids they came from (comma-separated). The key keeps the name it was first written
   * under (before "hand-over" meant only the rebalance hand-over), so that tables written before
   * and after read alike.
   */
  public String apacheTakeOver() {
    return apacheTakeOver;
  }

  /**
   * {@code streamhouse.<connector>.key-writers}: on keyed Iceberg tables, {@code
   * topic:partition=writer,...}, the task writer (a random id per key index a task built) whose
   * batch last brought rows of that partition; carried forward by every commit. A batch is only
   * committed when no other writer brought rows of its partitions since its key index was read.
   */
  public String keyWriters() {
    return keyWriters;
  }

  /**
   * {@code streamhouse.<connector>.rewrite-map}: on a compaction's {@code replace} snapshot of a
   * keyed table, the location of the file that says where the rewritten rows went, with which the
   * tasks translate their key indexes.
   */
  public String rewriteMap() {
    return rewriteMap;
  }
}
