package io.streamhouse.connect.table.iceberg;

import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotAncestryValidator;

/**
 * Runs inside Iceberg's commit, against the ancestry the new snapshot is applied to: the latest
 * snapshot carrying this connector's watermarks must still be the one the batch plan was made from.
 * Snapshots of other writers in between do not matter; a second committer of this connector does,
 * and makes this commit fail so that it is planned again. When the plan's snapshot was found by the
 * connector's tag because an expiry cut the ancestry (see {@link OwnSnapshot}), an ancestry without
 * any own snapshot is still the one the plan was made from. The take-over from the Apache Iceberg
 * sink (package {@code migration}) validates its commit the same way, on that sink's offsets key.
 */
public final class OwnSnapshotValidator implements SnapshotAncestryValidator {
  private final String watermarkKey;
  private final Long expectedSnapshotId;
  private final boolean expectedOffAncestry;
  private final Predicate<Map<String, String>> endsWalk;
  private Long found;

  public OwnSnapshotValidator(
      String watermarkKey, Long expectedSnapshotId, boolean expectedOffAncestry) {
    this(watermarkKey, expectedSnapshotId, expectedOffAncestry, summary -> false);
  }

  /**
   * {@code endsWalk}: a snapshot (below the newest, above any with {@code watermarkKey}) whose
   * summary it accepts ends the walk with none found, as {@link OwnSnapshot#find} does.
   */
  OwnSnapshotValidator(
      String watermarkKey,
      Long expectedSnapshotId,
      boolean expectedOffAncestry,
      Predicate<Map<String, String>> endsWalk) {
    this.watermarkKey = watermarkKey;
    this.expectedSnapshotId = expectedSnapshotId;
    this.expectedOffAncestry = expectedOffAncestry;
    this.endsWalk = endsWalk;
  }

  @Override
  public boolean validate(Iterable<Snapshot> ancestry) {
    found = null;
    for (Snapshot s : ancestry) {
      if (s.summary() != null && s.summary().containsKey(watermarkKey)) {
        found = s.snapshotId();
        break;
      }
      if (endsWalk.test(s.summary())) {
        break;
      }
    }
    if (found == null && expectedOffAncestry) {
      return true;
    }
    return Objects.equals(found, expectedSnapshotId);
  }

  @Override
  public String errorMessage() {
    return "watermarks changed: the plan was made from snapshot "
        + expectedSnapshotId
        + " but the latest snapshot with "
        + watermarkKey
        + " is now "
        + found;
  }
}
