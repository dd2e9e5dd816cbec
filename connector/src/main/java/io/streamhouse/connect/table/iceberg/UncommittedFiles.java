package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.Table;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Deletes the files of batches no commit took (rejected ones): no snapshot references them. */
final class UncommittedFiles {
  private static final Logger LOG = LoggerFactory.getLogger(UncommittedFiles.class);

  private UncommittedFiles() {}

  static void delete(TableId id, Table table, List<PreparedFiles> prepared) {
    for (PreparedFiles files : prepared) {
      List<ContentFile<?>> decoded = new ArrayList<>();
      try {
        if (KeyedFilesCodec.isKeyed(files.payloadVersion())) {
          KeyedFilesCodec.KeyedFiles keyed = KeyedFilesCodec.decode(files.payload(), table.specs());
          decoded.addAll(keyed.data());
          decoded.addAll(keyed.deletes());
        } else {
          decoded.addAll(
              DataFilesCodec.decode(files.payloadVersion(), files.payload(), table.specs()));
        }
      } catch (DataFilesCodec.InvalidDataFilesException e) {
        LOG.warn("Uncommitted files of {} cannot be read, so not deleted: {}", id, e.getMessage());
        continue;
      }
      for (ContentFile<?> file : decoded) {
        try {
          table.io().deleteFile(file.location());
        } catch (RuntimeException e) {
          LOG.warn(
              "Could not delete uncommitted file {} of {}: {}", file.location(), id, e.toString());
        }
      }
    }
  }
}
