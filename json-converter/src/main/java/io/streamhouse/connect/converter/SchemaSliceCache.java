package io.streamhouse.connect.converter;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
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

  private final Map<Slice, Slice> schemas;

  /** The slice read or kept last. */
  private Slice last;

  SchemaSliceCache(int capacity) {
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
  }

  /** The schema whose JSON is {@code bytes[from, to)}, or null when it is not cached. */
  synchronized Schema get(byte[] bytes, int from, int to) {
    if (last != null && last.sameBytes(bytes, from, to)) {
      return last.schema;
    }
    Slice hit = schemas.get(new Slice(bytes, from, to, null));
    if (hit == null) {
      return null;
    }
    last = hit;
    return hit.schema;
  }

  /**
   * The most recently used schema if {@code bytes} hold its JSON at {@code from}, or null: what
   * lets a record that repeats the last schema skip parsing it at all.
   */
  synchronized Slice lastAt(byte[] bytes, int from) {
    if (last == null) {
      return null;
    }
    int to = from + last.length();
    return to <= bytes.length && last.sameBytes(bytes, from, to) ? last : null;
  }

  /** Keeps {@code schema} for the JSON {@code bytes[from, to)} unless that is too long to keep. */
  synchronized void put(byte[] bytes, int from, int to, Schema schema) {
    if (to - from > MAX_SLICE_BYTES) {
      return;
    }
    Slice key = new Slice(Arrays.copyOfRange(bytes, from, to), 0, to - from, schema);
    schemas.put(key, key);
    last = key;
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
