package io.streamhouse.connect.table.iceberg;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Map;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.data.Record;

/**
 * What a table's rows cost in memory, for the task's {@link
 * io.streamhouse.connect.table.FileBudget}: the heap size of every 32nd row as Java objects (a
 * record's array and header, strings by their length plus a header, boxed values), averaged. Rows
 * held in memory cost that; rows in an open Parquet or ORC file cost less, encoded, so the estimate
 * errs on the safe side there. Sampling keeps it cheap.
 */
final class RowSizes {
  private static final int SAMPLE_EVERY = 32;

  /** Past this many samples the average moves by 1/8 of each new sample's difference. */
  private static final int WEIGHT = 8;

  private long rows;
  private long samples;
  private long average;

  /**
   * The bytes to charge for {@code row}: the mean of the first {@link #WEIGHT} samples, then a
   * moving average.
   */
  long of(Record row) {
    if (rows++ % SAMPLE_EVERY == 0) {
      samples = Math.min(samples + 1, WEIGHT);
      average += (estimate(row) - average) / samples;
    }
    return average;
  }

  static long estimate(Object value) {
    if (value == null) {
      return 0;
    }
    if (value instanceof Utf8 u) {
      return 48 + u.getByteLength(); // its length() decodes it into a String
    }
    if (value instanceof CharSequence s) {
      return 48 + s.length();
    }
    if (value instanceof ByteBuffer b) {
      return 64 + b.remaining();
    }
    if (value instanceof byte[] b) {
      return 16 + b.length;
    }
    if (value instanceof Record r) {
      long size = 48 + 8L * r.size();
      for (int i = 0; i < r.size(); i++) {
        size += estimate(r.get(i));
      }
      return size;
    }
    if (value instanceof Collection<?> c) {
      long size = 40 + 8L * c.size();
      for (Object element : c) {
        size += estimate(element);
      }
      return size;
    }
    if (value instanceof Map<?, ?> m) {
      long size = 64 + 40L * m.size();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        size += estimate(e.getKey()) + estimate(e.getValue());
      }
      return size;
    }
    return 24; // a boxed number, a date or time
  }
}
