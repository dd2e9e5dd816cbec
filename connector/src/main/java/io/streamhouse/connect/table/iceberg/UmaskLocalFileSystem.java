package io.streamhouse.connect.table.iceberg;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

/**
 * Hadoop's raw local file system whose new files and folders keep the permissions the process's
 * umask gives them: without Hadoop's native library (as in a Connect worker) the raw file system
 * sets every permission by forking a {@code chmod} process, one per file and per folder it creates.
 */
public final class UmaskLocalFileSystem extends RawLocalFileSystem {
  @Override
  public void setPermission(Path path, FsPermission permission) {
    // the umask's permissions stand
  }
}
