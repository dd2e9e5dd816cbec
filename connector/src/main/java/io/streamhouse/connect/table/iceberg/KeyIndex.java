package io.streamhouse.connect.table.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;

/**
 * Where the live row of each key is, for one task writer of one keyed Iceberg table: key hash to
 * (data file, row position), over the files of the snapshot it was read from and the files the
 * writer added since. Read once per writer from the snapshot's key columns with the deletes applied
 * (a scan of the key columns only, not of whole rows), then kept up to date as the writer writes.
 * About 32 bytes per key plus one entry per data file.
 */
final class KeyIndex {
  /**
   * A data file the index points into: where it is, the partition its deletes go to, and its data
   * sequence number ({@link #OWN}: a file the writer is writing), which says which of two live rows
   * of one key is the newer.
   */
  record FileRef(String location, PartitionSpec spec, StructLike partition, long sequence) {}

  /** The sequence number of the files a writer writes: newer than any in the table. */
  static final long OWN = Long.MAX_VALUE;

  /**
   * Receives the key, packed position and order value ({@link KeyPositions#NO_ORDER} without an
   * order column) of each live row read.
   */
  @FunctionalInterface
  interface RowSink {
    void row(long[] key, long packed, long order);
  }

  /** A data file's entry once the file left the table: nothing points into it any more. */
  private static final FileRef GONE = new FileRef("", PartitionSpec.unpartitioned(), null, 0);

  private final List<FileRef> files = new ArrayList<>();
  private final KeyPositions positions;
  private final KeyHash hash;
  private List<Integer> keyIds = List.of();

  /** The field id of the route's order-by column, or -1: changes are not ordered by a value. */
  private final int orderId;

  private final OwnFiles own = new OwnFiles();

  /** Positions of rows that duplicate a key found when the index was read: to delete. */
  private final List<Long> duplicates = new ArrayList<>();

  private KeyIndex(KeyHash hash, long expectedKeys, int orderId) {
    this.hash = hash;
    this.orderId = orderId;
    this.positions = new KeyPositions(expectedKeys, orderId >= 0);
  }

  /** An index of a table without rows; {@code orderId}: the order-by column's field id, or -1. */
  static KeyIndex empty(KeyHash hash, List<Integer> keyIds, int orderId) {
    KeyIndex index = new KeyIndex(hash, 0, orderId);
    index.keyIds = List.copyOf(keyIds);
    return index;
  }

  /**
   * Reads the key columns of every live row of {@code snapshot} (null: the table has none). When a
   * key has several live rows (a table that was written without keys before), the row of the file
   * with the highest order value stays (see {@link #place}), the others are listed in {@link
   * #duplicates()}. {@code orderId}: the order-by column's field id, or -1.
   */
  static KeyIndex read(
      Table table, Snapshot snapshot, List<Integer> keyIds, int orderId, KeyHash hash) {
    KeyIndex index = new KeyIndex(hash, KeyPositions.liveRowsOf(snapshot), orderId);
    index.keyIds = List.copyOf(keyIds);
    if (snapshot == null) {
      return index;
    }
    index.readFiles(table, snapshot, location -> true, index::place);
    return index;
  }

  /**
   * Registers every data file of {@code snapshot} whose location {@code which} accepts and hands
   * the key and position of each of its live rows (deletes applied) to {@code sink}.
   */
  void readFiles(
      Table table, Snapshot snapshot, java.util.function.Predicate<String> which, RowSink sink) {
    Set<Integer> ids = new java.util.HashSet<>(keyIds);
    if (orderId >= 0) {
      ids.add(orderId);
    }
    Schema keys = TypeUtil.select(table.schema(), ids);
    List<Types.NestedField> projected = new ArrayList<>();
    for (int id : keyIds) {
      projected.add(keys.findField(id));
    }
    if (orderId >= 0 && !keyIds.contains(orderId)) {
      projected.add(keys.findField(orderId));
    }
    projected.add(MetadataColumns.ROW_POSITION);
    Schema requested = new Schema(projected);
    Map<Integer, PartitionSpec> specs = table.specs();
    try (CloseableIterable<FileScanTask> tasks =
        CallerThread.scan(table, snapshot.snapshotId()).planFiles()) {
      for (FileScanTask task : tasks) {
        if (!which.test(task.file().location())) {
          continue;
        }
        Long sequence = task.file().dataSequenceNumber();
        int ordinal =
            add(
                new FileRef(
                    task.file().location(),
                    specs.get(task.file().specId()),
                    task.file().partition(),
                    sequence == null ? 0 : sequence));
        readFile(table, task, requested, ordinal, sink);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot read the key columns of table " + table.name() + ": " + e.getMessage(), e);
    }
  }

  private void readFile(Table table, FileScanTask task, Schema requested, int ordinal, RowSink sink)
      throws IOException {
    GenericDeleteFilter deletes =
        new GenericDeleteFilter(table.io(), task, table.schema(), requested);
    Schema read = deletes.requiredSchema();
    int keyCount = keyIds.size();
    int[] keyPositions = new int[keyCount];
    for (int i = 0; i < keyCount; i++) {
      keyPositions[i] = position(read, requested.columns().get(i).fieldId());
    }
    int posPosition = position(read, MetadataColumns.ROW_POSITION.fieldId());
    int orderPosition = orderId >= 0 ? position(read, orderId) : -1;
    Map<Integer, ?> constants =
        PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    try (CloseableIterable<Record> rows =
        deletes.filter(
            FormatModelRegistry.<Record, Object>readBuilder(
                    task.file().format(), Record.class, table.io().newInputFile(task.file()))
                .project(read)
                .idToConstant(constants)
                .build())) {
      for (Record row : rows) {
        long pos = (Long) row.get(posPosition);
        long order =
            orderPosition < 0 ? KeyPositions.NO_ORDER : OrderColumn.valueOf(row.get(orderPosition));
        sink.row(hash.of(KeyHash.values(row, keyPositions)), pack(ordinal, pos), order);
      }
    }
  }

  /**
   * Sets the live row of {@code key} to {@code packed} (order value {@code order}). When the key
   * has another live row (a table written without keys before, an outside writer's second row), the
   * row with the higher order value stays; on equal ones (always, without an order column) the row
   * of the file with the higher data sequence number, the later one on a tie; the other is listed
   * in {@link #takeDuplicates()}, to delete.
   */
  void place(long[] key, long packed, long order) {
    long previousOrder = positions.orderOf(key);
    long previous = positions.put(key, packed, order);
    if (previous != KeyPositions.NONE && previous != packed) {
      boolean keepPrevious =
          previousOrder != order
              ? previousOrder > order
              : files.get(fileOf(previous)).sequence() > files.get(fileOf(packed)).sequence();
      if (keepPrevious) {
        positions.put(key, previous, previousOrder);
        duplicates.add(packed);
      } else {
        duplicates.add(previous);
      }
    }
  }

  /**
   * Sets the live row of {@code key} to {@code packed}, a newer row than any the index knows: a row
   * the key had before is listed in {@link #takeDuplicates()}, to delete.
   */
  void replace(long[] key, long packed, long order) {
    long previous = positions.put(key, packed, order);
    if (previous != KeyPositions.NONE && previous != packed) {
      duplicates.add(previous);
    }
  }

  /**
   * Forgets the data files of {@code ordinals} (they left the table, or their rows are read again):
   * every key whose row is in one of them leaves the index, and so does every listed duplicate;
   * returns the number of keys removed.
   */
  int dropFiles(java.util.BitSet ordinals) {
    duplicates.removeIf(p -> ordinals.get(fileOf(p)));
    for (int i = ordinals.nextSetBit(0); i >= 0; i = ordinals.nextSetBit(i + 1)) {
      files.set(i, GONE);
    }
    return positions.translateAll(p -> ordinals.get(fileOf(p)) ? KeyPositions.NONE : p);
  }

  private static int position(Schema schema, int fieldId) {
    List<Types.NestedField> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).fieldId() == fieldId) {
        return i;
      }
    }
    throw new IllegalStateException("field " + fieldId + " is not in " + schema);
  }

  /**
   * The identifier fields of {@code schema} in column order: top-level columns only (the table
   * creator makes none other).
   */
  static List<Integer> keyIds(Schema schema) {
    Set<Integer> ids = schema.identifierFieldIds();
    List<Integer> ordered = new ArrayList<>();
    for (Types.NestedField column : schema.columns()) {
      if (ids.contains(column.fieldId())) {
        ordered.add(column.fieldId());
      }
    }
    if (ordered.size() != ids.size()) {
      throw new IllegalStateException(
          "table's identifier fields " + ids + " are not all top-level columns of " + schema);
    }
    return ordered;
  }

  /** The key types of {@code schema}'s identifier fields, in {@code keyIds} order. */
  static List<Type> keyTypes(Schema schema, List<Integer> keyIds) {
    return keyIds.stream().map(id -> schema.findField(id).type()).toList();
  }

  KeyHash hash() {
    return hash;
  }

  /** The identifier field ids the index is keyed by, in column order. */
  List<Integer> keyIds() {
    return keyIds;
  }

  /** Registers a data file; its ordinal. */
  int add(FileRef file) {
    files.add(file);
    return files.size() - 1;
  }

  /** The data files the writer wrote that no snapshot the index is good for holds yet. */
  OwnFiles own() {
    return own;
  }

  FileRef file(int ordinal) {
    return files.get(ordinal);
  }

  int fileCount() {
    return files.size();
  }

  long get(long[] key) {
    return positions.get(key);
  }

  long put(long[] key, long position) {
    return positions.put(key, position);
  }

  long put(long[] key, long position, long order) {
    return positions.put(key, position, order);
  }

  /**
   * Another writer committed row {@code packed} (order value {@code order}) of a key the writer's
   * batch changed: returns the row the batch deletes. Without an order column, or when the batch's
   * change orders at least as high, the committed row (the batch's change comes later); when the
   * committed row orders higher, the batch's own row, and the index points at the committed one.
   */
  long supersede(long[] key, long packed, long order) {
    long own = positions.get(key);
    if (own != KeyPositions.NONE && positions.orderOf(key) < order) {
      positions.put(key, packed, order);
      return own;
    }
    return packed;
  }

  /** The order value of {@code key}'s row; {@link KeyPositions#NO_ORDER} if none is known. */
  long orderOf(long[] key) {
    return positions.orderOf(key);
  }

  /** Whether the index keeps an order value per key (the route has an order-by column). */
  boolean ordered() {
    return orderId >= 0;
  }

  long remove(long[] key) {
    return positions.remove(key);
  }

  int keys() {
    return positions.size();
  }

  long bytes() {
    return positions.bytes() + 64L * files.size();
  }

  /**
   * Moves every position that points into a file {@code map} rewrote to the row's new place (new
   * files registered as they come), together with {@code pending} (packed positions not yet
   * deleted). A position at a row the rewrite dropped points at a row deleted before the rewrite
   * (by another task of the connector whose key this index also holds, or by another engine): its
   * key leaves the index (it has no live row) and a pending delete of it is left out (the row is
   * gone already). Returns the number of index keys and pending deletes so dropped.
   */
  int translate(RewriteMap map, List<Long> pending) {
    Map<String, Integer> added = new java.util.HashMap<>();
    java.util.function.LongUnaryOperator moved =
        packed -> {
          FileRef ref = files.get(fileOf(packed));
          if (!map.rewrote(ref.location())) {
            return packed;
          }
          java.util.Optional<RewriteMap.Place> place = map.placeOf(ref.location(), rowOf(packed));
          if (place.isEmpty()) {
            return KeyPositions.NONE;
          }
          int ordinal =
              added.computeIfAbsent(
                  place.get().location(),
                  l -> add(new FileRef(l, ref.spec(), ref.partition(), ref.sequence())));
          return pack(ordinal, place.get().position());
        };
    List<Long> pendingMoved = new ArrayList<>(pending.size());
    for (long packed : pending) {
      long to = moved.applyAsLong(packed);
      if (to != KeyPositions.NONE) {
        pendingMoved.add(to);
      }
    }
    int dropped = pending.size() - pendingMoved.size();
    dropped += positions.translateAll(moved);
    pending.clear();
    pending.addAll(pendingMoved);
    duplicates.replaceAll(moved::applyAsLong);
    duplicates.removeIf(p -> p == KeyPositions.NONE);
    for (int i = 0; i < files.size(); i++) {
      if (map.rewrote(files.get(i).location())) {
        files.set(i, GONE); // nothing points into it any more
      }
    }
    return dropped;
  }

  /** Positions of rows that duplicated a key when the index was read; taken once. */
  List<Long> takeDuplicates() {
    List<Long> taken = List.copyOf(duplicates);
    duplicates.clear();
    return taken;
  }

  static long pack(int ordinal, long pos) {
    if (pos < 0 || pos > 0xFFFFFFFFL) {
      throw new IllegalArgumentException("row position " + pos + " is out of range");
    }
    return ((long) ordinal << 32) | pos;
  }

  static int fileOf(long packed) {
    return (int) (packed >>> 32);
  }

  static long rowOf(long packed) {
    return packed & 0xFFFFFFFFL;
  }
}
