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
   * Per configuration of the converters, the slice that a cache kept or found last: where a new
   * cache of that configuration starts. The tasks of a connector read the same schemas, and the
   * next task's converter then takes its first record down the path the JIT compiled for the first
   * task's. Starting empty, it took a branch that path had never taken ({@code last == null}), and
   * the compiled code was thrown away ({@code unstable_if}) while the drain was still compiling.
   */
  private static final Map<String, Slice> RECENT = new ConcurrentHashMap<>();

  /** Configurations whose last slice is kept; past that the map starts over. */
  static final int MAX_ORIGINS = 64;

  private final Map<Slice, Slice> schemas;
  private final String origin;
  private Slice last;

  /** A cache that starts empty. */
  SchemaSliceCache(int capacity) {
    this(capacity, null);
  }

  /**
   * A cache that starts where the last one of the same {@code origin} (the converter's settings,
   * which decide how JSON becomes a schema) left: its last schema first. Null: it starts empty.
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
    this.origin = origin;
    this.last = origin == null ? null : RECENT.get(origin);
  }

  private void remember(Slice slice) {
    last = slice;
    if (origin != null && RECENT.get(origin) != slice) {
      if (RECENT.size() >= MAX_ORIGINS && !RECENT.containsKey(origin)) {
        RECENT.clear();
      }
      RECENT.put(origin, slice);
    }
  }

  /** The schema whose JSON is {@code bytes[from, to)}, or null when it is not cached. */
  synchronized Schema get(byte[] bytes, int from, int to) {
    Slice lastHit = last;
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
    Slice lastHit = last;
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
