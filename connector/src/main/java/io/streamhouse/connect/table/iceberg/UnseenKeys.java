package io.streamhouse.connect.table.iceberg;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.OptionalLong;

/**
 * The keys a keyed batch changed without its writer's index holding a row of them: inserted as new,
 * or deleted while the index knew no row. Kept as the sorted, distinct first 64 bits of their
 * {@link KeyHash}es. A key the index knew is changed through its row's position, which another
 * writer's change of the same key contradicts ({@link StalePositions}); a key it did not know
 * leaves no such trace, so two writers that both insert it (records of one key on two Kafka
 * partitions) would each leave a live row. The coordinator compares these sets between the writers
 * of one commit and against what other writers committed since a batch's index was read ({@link
 * UnseenKeyHistory}). Two distinct keys share 64 bits with odds of about n*m/2^64 for sets of n and
 * m keys: a batch is then rejected and written again, nothing is lost.
 */
final class UnseenKeys {
  static final long[] NONE = new long[0];

  private long[] hashes = new long[16];
  private int count;

  /** The batch changed the key of {@code hash} without a row of it in its index. */
  void add(long[] hash) {
    if (count == hashes.length) {
      hashes = Arrays.copyOf(hashes, count * 2);
    }
    hashes[count++] = hash[0];
  }

  /** The keys added since the last call; starts over. */
  Taken take() {
    Taken taken = new Taken(sortedDistinct(Arrays.copyOf(hashes, count)));
    count = 0;
    if (hashes.length > 1 << 16) {
      hashes = new long[16]; // a big batch does not keep its array for the small ones after it
    }
    return taken;
  }

  /**
   * One batch's unseen keys, sorted and distinct. A key leaves them once the batch deletes the row
   * another writer committed for it ({@link OtherWritersCatchUp}): the batch then knows the key.
   */
  static final class Taken {
    private final long[] sorted;
    private final java.util.BitSet seen = new java.util.BitSet();

    Taken(long[] sorted) {
      this.sorted = sorted;
    }

    /** Whether the key of {@code hash} is one of them (and not seen since). */
    boolean contains(long[] hash) {
      int at = Arrays.binarySearch(sorted, hash[0]);
      return at >= 0 && !seen.get(at);
    }

    /** The batch now deletes a row of the key of {@code hash}: no longer unseen. */
    void seen(long[] hash) {
      int at = Arrays.binarySearch(sorted, hash[0]);
      if (at >= 0) {
        seen.set(at);
      }
    }

    /** Those not seen, sorted and distinct: what the batch carries. */
    long[] hashes() {
      if (seen.isEmpty()) {
        return sorted;
      }
      long[] left = new long[sorted.length - seen.cardinality()];
      int n = 0;
      for (int i = 0; i < sorted.length; i++) {
        if (!seen.get(i)) {
          left[n++] = sorted[i];
        }
      }
      return left;
    }
  }

  /** Sorts {@code values} in place and returns its distinct values. */
  static long[] sortedDistinct(long[] values) {
    Arrays.sort(values);
    int n = 0;
    for (int i = 0; i < values.length; i++) {
      if (i == 0 || values[i] != values[i - 1]) {
        values[n++] = values[i];
      }
    }
    return n == values.length ? values : Arrays.copyOf(values, n);
  }

  /** A hash both sorted, distinct sets hold; empty if none. */
  static OptionalLong common(long[] a, long[] b) {
    int i = 0;
    int j = 0;
    while (i < a.length && j < b.length) {
      if (a[i] == b[j]) {
        return OptionalLong.of(a[i]);
      }
      if (a[i] < b[j]) {
        i++;
      } else {
        j++;
      }
    }
    return OptionalLong.empty();
  }

  /** {@code hashes} as Base64 text of big-endian longs, for a batch's payload. */
  static String encode(long[] hashes) {
    ByteBuffer bytes = ByteBuffer.allocate(hashes.length * Long.BYTES);
    bytes.asLongBuffer().put(hashes);
    return Base64.getEncoder().encodeToString(bytes.array());
  }

  /**
   * The set {@link #encode} wrote; the text comes off the control topic, so its length must be a
   * whole number of longs (its size is already bounded by the payload's) and the set is sorted and
   * made distinct again rather than trusted.
   */
  static long[] decode(String text) {
    byte[] bytes = Base64.getDecoder().decode(text);
    if (bytes.length % Long.BYTES != 0) {
      throw new IllegalArgumentException(
          "unseen keys of " + bytes.length + " bytes, not a whole number of 64-bit hashes");
    }
    long[] hashes = new long[bytes.length / Long.BYTES];
    ByteBuffer.wrap(bytes).asLongBuffer().get(hashes);
    return sortedDistinct(hashes);
  }
}
