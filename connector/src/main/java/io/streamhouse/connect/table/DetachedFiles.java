package io.streamhouse.connect.table;

import io.streamhouse.connect.protocol.PreparedFiles;

/**
 * Files taken out of a {@link TableWriter} for a commit, still to be closed. Closing is the slow
 * part of preparing a batch (the last pages, the footer, the upload), so it may run on another
 * thread than the writer's, while the writer goes on with new files.
 */
@FunctionalInterface
public interface DetachedFiles {
  /** Closes the files and returns them, serialized, without committing anything. */
  PreparedFiles close();

  /** Files that were prepared already. */
  static DetachedFiles of(PreparedFiles prepared) {
    return () -> prepared;
  }
}
