package io.streamhouse.connect.table.iceberg;

/**
 * Key hash (128 bits) to a row position (a long), in open addressing with linear probing: three
 * long arrays, about 32 bytes per key at the 0.75 load it grows at, and no object per key. Deleting
 * shifts the following entries back, so lookups never meet a tombstone. A table that keeps an order
 * value per key (a route's {@code order-by}) has a fourth array: about 43 bytes per key. Not
 * thread-safe.
 */
final class KeyPositions {
  /** A position no row has: the mark of an empty slot. */
  static final long NONE = -1L;

  /** The order value of a key without one: lower than any. */
  static final long NO_ORDER = Long.MIN_VALUE;

  private final boolean ordered;
  private long[] low;
  private long[] high;
  private long[] values;
  private long[] orders;
  private int size;
  private int mask;

  /** The most slots a size hint may ask for up front: 2^24 slots, 384 MiB, 12.5M keys. */
  static final int MAX_HINTED_CAPACITY = 1 << 24;

  KeyPositions() {
    this(0, false);
  }

  /**
   * A table sized for {@code expected} keys without growing (growing holds the old arrays and the
   * new, twice as large, at once: 1.5 times the memory while it copies), up to {@link
   * #MAX_HINTED_CAPACITY} slots; past that it grows as keys come.
   */
  KeyPositions(long expected, boolean ordered) {
    this.ordered = ordered;
    long wanted = Math.min(Math.max(0, expected), 1L << 40) * 4 / 3 + 1;
    int capacity = 1 << 10;
    while (capacity < wanted && capacity < MAX_HINTED_CAPACITY) {
      capacity <<= 1;
    }
    allocate(capacity);
  }

  private void allocate(int capacity) {
    low = new long[capacity];
    high = new long[capacity];
    values = new long[capacity];
    orders = ordered ? new long[capacity] : null;
    java.util.Arrays.fill(values, NONE);
    mask = capacity - 1;
    size = 0;
  }

  int size() {
    return size;
  }

  /** Bytes the arrays take. */
  long bytes() {
    return (ordered ? 32L : 24L) * values.length;
  }

  /** The order value of {@code key}'s row, {@link #NO_ORDER} if it has none or is absent. */
  long orderOf(long[] key) {
    if (!ordered) {
      return NO_ORDER;
    }
    int slot = slot(key[0], key[1]);
    while (values[slot] != NONE) {
      if (low[slot] == key[0] && high[slot] == key[1]) {
        return orders[slot];
      }
      slot = (slot + 1) & mask;
    }
    return NO_ORDER;
  }

  /** The position of {@code key}, or {@link #NONE}. */
  long get(long[] key) {
    int slot = slot(key[0], key[1]);
    while (values[slot] != NONE) {
      if (low[slot] == key[0] && high[slot] == key[1]) {
        return values[slot];
      }
      slot = (slot + 1) & mask;
    }
    return NONE;
  }

  /**
   * Sets the position of {@code key} ({@code position} ≥ 0); the previous one, or {@link #NONE}.
   */
  long put(long[] key, long position) {
    return put(key, position, NO_ORDER);
  }

  /** {@link #put(long[], long)}, with the order value of the row (kept if the table keeps them). */
  long put(long[] key, long position, long order) {
    if (position < 0) {
      throw new IllegalArgumentException("position " + position);
    }
    if (size + 1 > values.length * 3L / 4) {
      grow();
    }
    int slot = slot(key[0], key[1]);
    while (values[slot] != NONE) {
      if (low[slot] == key[0] && high[slot] == key[1]) {
        long previous = values[slot];
        values[slot] = position;
        if (ordered) {
          orders[slot] = order;
        }
        return previous;
      }
      slot = (slot + 1) & mask;
    }
    low[slot] = key[0];
    high[slot] = key[1];
    values[slot] = position;
    if (ordered) {
      orders[slot] = order;
    }
    size++;
    return NONE;
  }

  /** Removes {@code key}; its position, or {@link #NONE}. */
  long remove(long[] key) {
    int slot = slot(key[0], key[1]);
    while (values[slot] != NONE) {
      if (low[slot] == key[0] && high[slot] == key[1]) {
        long previous = values[slot];
        shiftBack(slot);
        size--;
        return previous;
      }
      slot = (slot + 1) & mask;
    }
    return NONE;
  }

  /**
   * Replaces every position by {@code translate} of it; a key whose position translates to {@link
   * #NONE} is removed. Returns the number of keys removed.
   */
  int translateAll(java.util.function.LongUnaryOperator translate) {
    long[] translated = new long[values.length];
    long[] dropped = new long[16]; // key hashes, two longs each
    int count = 0;
    for (int i = 0; i < values.length; i++) {
      if (values[i] == NONE) {
        translated[i] = NONE;
      } else {
        translated[i] = translate.applyAsLong(values[i]);
        if (translated[i] == NONE) {
          translated[i] = values[i]; // removed below, where the probe sequence is kept intact
          if (2 * count + 2 > dropped.length) {
            dropped = java.util.Arrays.copyOf(dropped, dropped.length * 2);
          }
          dropped[2 * count] = low[i];
          dropped[2 * count + 1] = high[i];
          count++;
        }
      }
    }
    values = translated;
    for (int k = 0; k < count; k++) {
      remove(new long[] {dropped[2 * k], dropped[2 * k + 1]});
    }
    return count;
  }

  /** Empties {@code hole} and moves back every following entry that may sit there. */
  private void shiftBack(int hole) {
    int next = (hole + 1) & mask;
    while (values[next] != NONE) {
      int home = slot(low[next], high[next]);
      // Move the entry at next into the hole if its home is not in (hole, next], cyclically.
      boolean between =
          hole <= next ? (hole < home && home <= next) : (hole < home || home <= next);
      if (!between) {
        low[hole] = low[next];
        high[hole] = high[next];
        values[hole] = values[next];
        if (ordered) {
          orders[hole] = orders[next];
        }
        hole = next;
      }
      next = (next + 1) & mask;
    }
    values[hole] = NONE;
  }

  private void grow() {
    long[] oldLow = low;
    long[] oldHigh = high;
    long[] oldValues = values;
    long[] oldOrders = orders;
    allocate(oldValues.length * 2);
    for (int i = 0; i < oldValues.length; i++) {
      if (oldValues[i] != NONE) {
        put(new long[] {oldLow[i], oldHigh[i]}, oldValues[i], ordered ? oldOrders[i] : NO_ORDER);
      }
    }
  }

  /** Both halves mixed (murmur3's finalizer), so that no pattern of keys shares a slot. */
  private int slot(long lo, long hi) {
    long h = lo * 0x9E3779B97F4A7C15L + hi;
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    return (int) h & mask;
  }

  /**
   * The live rows {@code snapshot}'s summary counts (records less position deletes), to size the
   * index for: 0 when it does not say or says nonsense (the catalog is not trusted; {@link
   * KeyPositions} bounds what a hint may allocate).
   */
  static long liveRowsOf(org.apache.iceberg.Snapshot snapshot) {
    if (snapshot == null || snapshot.summary() == null) {
      return 0;
    }
    try {
      long records = Long.parseLong(snapshot.summary().getOrDefault("total-records", "0"));
      long deleted = Long.parseLong(snapshot.summary().getOrDefault("total-position-deletes", "0"));
      return Math.max(0, records - Math.max(0, deleted));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
