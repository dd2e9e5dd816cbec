package io.streamhouse.connect.converter;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.connect.data.Schema;

/**
 * Connect schemas by the raw bytes of their JSON ({@code "schema"} of a record's envelope), least
 * recently used out first, so that a schema seen before is never parsed again: a lookup compares
 * byte slices of the record itself, without copying them. The most recent hit is compared first,
 * which is all a topic with one schema ever needs. Slices above {@link #MAX_SLICE_BYTES} are not
 * kept (the caller falls back to {@code JsonConverter} for them), so the cache holds at most {@code
 * capacity} times that many bytes.
 */
final class SchemaSliceCache {
  /** The largest schema, in bytes of JSON, the cache keeps. */
  static final int MAX_SLICE_BYTES = 1 << 20;

  /**
   * Per configuration of the converters, the slice that a cache of it kept or found last: shared by
   * every cache of that configuration, the tasks of a connector read the same schemas. A task's
   * converter then takes its first record down the path the JIT compiled for another task's, even
   * when both were configured before either read a record (Connect starts a connector's tasks
   * together). Starting without a last slice, it took a branch that compiled path had never taken
   * ({@code last == null}), and the compiled code was thrown away ({@code unstable_if}) while the
   * drain was still compiling.
   */
  private static final Map<String, LastSlice> RECENT = new ConcurrentHashMap<>();

  /** Configurations whose last slice is shared; past that the map starts over. */
  static final int MAX_ORIGINS = 64;

  /**
   * The slice read last. Written and read without a lock by the caches that share it: a slice is
   * immutable (final fields), and a stale one only sends a lookup to the map.
   */
  private static final class LastSlice {
    Slice slice;
  }

  private final Map<Slice, Slice> schemas;
  private final LastSlice last;

  /** A cache that starts empty. */
  SchemaSliceCache(int capacity) {
    this(capacity, null);
  }

  /**
   * A cache that shares the last slice with the other caches of the same {@code origin} (the
   * converter's settings, which decide how JSON becomes a schema): it starts where they are. Null:
   * it starts empty and shares nothing.
   */
  SchemaSliceCache(int capacity, String origin) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1: " + capacity);
    }
    this.schemas =
        new LinkedHashMap<>(16, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<Slice, Slice> eldest) {
            return size() > capacity;
          }
        };
    this.last = origin == null ? new LastSlice() : shared(origin);
  }

  private static LastSlice shared(String origin) {
    if (RECENT.size() >= MAX_ORIGINS && !RECENT.containsKey(origin)) {
      RECENT.clear(); // caches made before keep theirs; they no longer share it with new ones
    }
    return RECENT.computeIfAbsent(origin, o -> new LastSlice());
  }

  private void remember(Slice slice) {
    if (last.slice != slice) { // a shared field: no write, and no cache line taken, when unchanged
      last.slice = slice;
    }
  }

  /** The schema whose JSON is {@code bytes[from, to)}, or null when it is not cached. */
  synchronized Schema get(byte[] bytes, int from, int to) {
    Slice lastHit = last.slice;
    if (lastHit != null && lastHit.sameBytes(bytes, from, to)) {
      return lastHit.schema;
    }
    Slice hit = schemas.get(new Slice(bytes, from, to, null));
    if (hit == null) {
      return null;
    }
    remember(hit);
    return hit.schema;
  }

  /**
   * The most recently used schema if {@code bytes} hold its JSON at {@code from}, or null: what
   * lets a record that repeats the last schema skip parsing it at all.
   */
  synchronized Slice lastAt(byte[] bytes, int from) {
    Slice lastHit = last.slice;
    if (lastHit == null) {
      return null;
    }
    int to = from + lastHit.length();
    return to <= bytes.length && lastHit.sameBytes(bytes, from, to) ? lastHit : null;
  }

  /** Keeps {@code schema} for the JSON {@code bytes[from, to)} unless that is too long to keep. */
  synchronized void put(byte[] bytes, int from, int to, Schema schema) {
    if (to - from > MAX_SLICE_BYTES) {
      return;
    }
    Slice key = new Slice(Arrays.copyOfRange(bytes, from, to), 0, to - from, schema);
    schemas.put(key, key);
    remember(key);
  }

  synchronized int size() {
    return schemas.size();
  }

  /**
   * A byte slice as a map key. Its hash samples at most 64 bytes and the length (a schema's JSON is
   * hundreds of bytes and hashing all of them would cost more than comparing them); equality
   * compares every byte. A kept slice carries its schema; a probe carries null.
   */
  static final class Slice {
    private static final int SAMPLES = 64;
    final byte[] bytes;
    final int from;
    final int to;
    final Schema schema;
    private final int hash;

    private Slice(byte[] bytes, int from, int to, Schema schema) {
      this.bytes = bytes;
      this.from = from;
      this.to = to;
      this.schema = schema;
      int length = to - from;
      int step = Math.max(1, length / SAMPLES);
      int h = length;
      for (int i = from; i < to; i += step) {
        h = 31 * h + bytes[i];
      }
      this.hash = 31 * h + (length > 0 ? bytes[to - 1] : 0);
    }

    int length() {
      return to - from;
    }

    boolean sameBytes(byte[] other, int otherFrom, int otherTo) {
      return Arrays.equals(bytes, from, to, other, otherFrom, otherTo);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Slice s && s.hash == hash && s.sameBytes(bytes, from, to);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
