package io.streamhouse.connect.table.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * The position delete files of a keyed writer's batch: one per partition of the data files the
 * positions point into (a position delete file applies within its partition), the data files in
 * path order and each file's positions sorted and distinct, as the spec asks.
 */
final class PositionDeleteFiles {
  private PositionDeleteFiles() {}

  /** One position delete file per partition of the data files it points into, sorted. */
  static List<DeleteFile> write(
      Table table,
      GenericFileWriterFactory writerFactory,
      OutputFileFactory fileFactory,
      Map<String, KeyIndex.FileRef> refs,
      Map<String, List<Long>> byFile) {
    Map<String, List<String>> byPartition = new LinkedHashMap<>();
    for (String location : byFile.keySet()) {
      KeyIndex.FileRef ref = refs.get(location);
      String group = ref.spec().specId() + "/" + ref.spec().partitionToPath(ref.partition());
      byPartition.computeIfAbsent(group, g -> new ArrayList<>()).add(location);
    }
    List<DeleteFile> written = new ArrayList<>();
    for (List<String> locations : byPartition.values()) {
      KeyIndex.FileRef first = refs.get(locations.get(0));
      EncryptedOutputFile out =
          first.spec().isUnpartitioned()
              ? fileFactory.newOutputFile()
              : fileFactory.newOutputFile(first.spec(), first.partition());
      PositionDeleteWriter<Record> writer =
          writerFactory.newPositionDeleteWriter(
              out, first.spec(), first.spec().isUnpartitioned() ? null : first.partition());
      PositionDelete<Record> delete = PositionDelete.create();
      try (writer) {
        for (String location : locations) { // sorted: byFile is a TreeMap
          long[] positions = byFile.get(location).stream().mapToLong(Long::longValue).toArray();
          Arrays.sort(positions);
          long last = -1;
          for (long pos : positions) {
            if (pos != last) {
              writer.write(delete.set(location, pos));
              last = pos;
            }
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Cannot write a position delete file of table " + table.name(), e);
      }
      written.add(writer.toDeleteFile());
    }
    return written;
  }
}
