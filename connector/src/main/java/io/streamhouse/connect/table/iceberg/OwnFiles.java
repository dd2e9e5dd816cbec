package io.streamhouse.connect.table.iceberg;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * The data files a keyed writer wrote that are not yet in a snapshot its index is good for: what
 * the connector's commits since then added that is not here is another task's ({@link
 * OtherWritersCatchUp}). A file leaves once the index moves past the commit that added it; a
 * compaction may have removed it from the table by then, so the index's own entries, which a
 * compaction replaces, cannot tell.
 */
final class OwnFiles {
  private final Set<String> written = new HashSet<>();

  /** The writer wrote the data file at {@code location}. */
  void wrote(String location) {
    written.add(IcebergFileCheck.normalized(location));
  }

  /** Whether the writer wrote the file at {@code normalized} (a normalized location). */
  boolean contains(String normalized) {
    return written.contains(normalized);
  }

  /** The index moved past commits that added {@code normalized} files: they need no telling. */
  void committed(Collection<String> normalized) {
    written.removeAll(normalized);
  }

  int size() {
    return written.size();
  }
}
