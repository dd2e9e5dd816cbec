package io.streamhouse.connect.table.iceberg;

import java.util.Arrays;

/**
 * The keys one batch of a keyed writer changed, for a catch-up past outside writers ({@link
 * ForeignCatchUp}): those whose row is in one of the batch's own data files (the index points
 * there) and those it deleted (kept here as their hashes, 16 bytes each, only for the batch).
 */
final class BatchChanges {
  private int firstFile;
  private long[] tombstones = new long[16];
  private int count;

  /** A batch whose own data files get ordinals from {@code firstFile} on. */
  BatchChanges(int firstFile) {
    this.firstFile = firstFile;
  }

  /** The batch deleted the key of {@code hash}. */
  void deleted(long[] hash) {
    if (count * 2 == tombstones.length) {
      tombstones = Arrays.copyOf(tombstones, tombstones.length * 2);
    }
    tombstones[count * 2] = hash[0];
    tombstones[count * 2 + 1] = hash[1];
    count++;
  }

  /** The next batch starts: its own data files get ordinals from {@code firstFile} on. */
  void next(int firstFile) {
    this.firstFile = firstFile;
    count = 0;
  }

  /**
   * Whether a key is one the batch changed, judged by {@code index} as it is now (before a catch-up
   * changes it for that key). The deleted keys' set is built at the first question.
   */
  ForeignCatchUp.BatchKeys keys(KeyIndex index) {
    int first = firstFile;
    int end = index.fileCount();
    KeyPositions[] deleted = new KeyPositions[1];
    return key -> {
      long at = index.get(key);
      if (at != KeyPositions.NONE && KeyIndex.fileOf(at) >= first && KeyIndex.fileOf(at) < end) {
        return true;
      }
      if (deleted[0] == null) {
        deleted[0] = new KeyPositions();
        for (int i = 0; i < count; i++) {
          deleted[0].put(new long[] {tombstones[2 * i], tombstones[2 * i + 1]}, 0);
        }
      }
      return deleted[0].get(key) != KeyPositions.NONE;
    };
  }
}
