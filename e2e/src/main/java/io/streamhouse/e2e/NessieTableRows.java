package io.streamhouse.e2e;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.io.FileIO;

/**
 * Iceberg tables as a reader saw them at one commit of a Nessie catalog's branch {@code main}: the
 * table's metadata file at that commit, opened as a static table through the catalog's FileIO and
 * read with Iceberg's generic reader (deletes applied, so a keyed table gives its current rows).
 * The rows of a metadata file are read once: the Nessie commits that left a table alone share them.
 */
public final class NessieTableRows implements AutoCloseable {
  private final NessieServer nessie;
  private final FileIO io;
  private final Map<String, List<Map<String, Object>>> rowsOf = new ConcurrentHashMap<>();

  public NessieTableRows(NessieServer nessie) {
    this.nessie = nessie;
    Map<String, String> props = new HashMap<>(nessie.catalogProperties());
    props.remove("uri");
    props.remove("type");
    this.io = CatalogUtil.loadFileIO(props.get("io-impl"), props, null);
  }

  /**
   * The rows of each of {@code tables} ({@code namespace.table}) at Nessie commit {@code hash}; a
   * table that did not exist at that commit has none.
   */
  public Map<String, List<Map<String, Object>>> rowsAt(String hash, Collection<String> tables) {
    Map<String, String> locations = nessie.metadataLocations(hash);
    Map<String, List<Map<String, Object>>> rows = new LinkedHashMap<>();
    for (String table : tables) {
      String location = locations.get(table);
      rows.put(
          table,
          location == null
              ? List.of()
              : rowsOf.computeIfAbsent(
                  location,
                  l -> IcebergTables.rows(new BaseTable(new StaticTableOperations(l, io), table))));
    }
    return rows;
  }

  /** How many metadata files were read. */
  public int metadataFilesRead() {
    return rowsOf.size();
  }

  @Override
  public void close() {
    io.close();
  }
}
