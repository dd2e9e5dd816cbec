package io.streamhouse.connect.table.iceberg;

import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Map;
import org.apache.iceberg.data.Record;

/**
 * What a table's rows cost in an open data file's buffers, for the task's {@link
 * io.streamhouse.connect.table.FileBudget}: the raw size of every 32nd row (strings and binaries by
 * their length, other values 8 bytes, plus a little per field), averaged. Parquet and ORC buffer
 * rows encoded, mostly smaller, so the estimate errs on the safe side; sampling keeps it cheap.
 */
final class RowSizes {
  private static final int SAMPLE_EVERY = 32;
  private long rows;
  private long average = -1;

  /** The bytes to charge for {@code row}. */
  long of(Record row) {
    if (rows++ % SAMPLE_EVERY == 0) {
      long size = estimate(row);
      average = average < 0 ? size : (average * 7 + size) / 8;
    }
    return average;
  }

  static long estimate(Object value) {
    if (value == null) {
      return 1;
    }
    if (value instanceof CharSequence s) {
      return 8 + s.length();
    }
    if (value instanceof ByteBuffer b) {
      return 8 + b.remaining();
    }
    if (value instanceof byte[] b) {
      return 8 + b.length;
    }
    if (value instanceof Record r) {
      long size = 8;
      for (int i = 0; i < r.size(); i++) {
        size += estimate(r.get(i));
      }
      return size;
    }
    if (value instanceof Collection<?> c) {
      long size = 8;
      for (Object element : c) {
        size += estimate(element);
      }
      return size;
    }
    if (value instanceof Map<?, ?> m) {
      long size = 8;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        size += estimate(e.getKey()) + estimate(e.getValue());
      }
      return size;
    }
    return 8;
  }
}
