package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableWriter;
import java.util.List;
import org.apache.iceberg.DataFile;

/**
 * Data files written by an {@link IcebergFormat}'s own writer, as Iceberg {@link DataFile}s: for
 * tests outside this package (the take-over from the Apache sink commits files such as these).
 */
public final class WrittenDataFiles {
  private WrittenDataFiles() {}

  /**
   * Files of {@code n} new order rows with ids {@code from} to {@code from + n - 1} (see {@link
   * AppendTableFixture#record}), written to {@code table} through {@code route}.
   */
  public static List<DataFile> write(
      IcebergFormat format, TableId table, RouteSettings route, long from, int n) throws Exception {
    TableWriter writer =
        format
            .openWriter(
                table, route, AppendTableFixture.record(from, from), new FileBudget(64, 64L << 20))
            .orElseThrow();
    for (long id = from; id < from + n; id++) {
      writer.write(AppendTableFixture.record(id, id));
    }
    PreparedFiles files = writer.prepare();
    writer.close();
    return DataFilesCodec.decode(
        files.payloadVersion(), files.payload(), format.table(table).specs());
  }
}
