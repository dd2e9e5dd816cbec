package io.streamhouse.connect.table;

import java.util.IdentityHashMap;

/**
 * The open data files of one task, over all its tables, under two limits: the bytes they hold in
 * memory and their number. Past either, the file holding the most memory is closed early (its rows
 * become a finished file of the batch), so memory is bounded by bytes however many tables and
 * partitions a task writes, and a file is cut only when it holds a fair share of the budget: never
 * one file per record.
 */
public final class FileBudget {
  /** An open file that can be closed early (its data is kept as a finished file). */
  public interface OpenFile {
    /** What the file holds in memory now, as charged to the budget. */
    long bufferedBytes();

    /** Closes the file; its rows stay in the batch as a finished file. */
    void closeEarly();
  }

  private final int maxFiles;
  private final long maxBytes;

  /** The open files, by identity. */
  private final IdentityHashMap<OpenFile, Boolean> open = new IdentityHashMap<>();

  private long bytes;
  private long evictions;

  /**
   * The bytes of every row written under this budget so far (all the task's tables): a partition's
   * share of the rows written since it began tells a hot partition from a cold one.
   */
  private long written;

  public FileBudget(int maxFiles, long maxBytes) {
    this.maxFiles = maxFiles;
    this.maxBytes = maxBytes;
  }

  /**
   * {@code file} was opened, holding {@code bytes} already: closes the largest other files past the
   * limits (never {@code file}, which is about to be written).
   */
  public void opened(OpenFile file, long bytes) {
    open.put(file, Boolean.TRUE);
    this.bytes += bytes;
    while ((open.size() > maxFiles || this.bytes > maxBytes) && open.size() > 1) {
      closeLargest(file);
    }
  }

  /**
   * An open file's memory grew (or shrank) by {@code delta} after a write: closes the largest
   * files, the one just written included, while over budget.
   */
  public void charge(long delta) {
    bytes += delta;
    while (bytes > maxBytes && !open.isEmpty()) {
      closeLargest(null);
    }
  }

  /** A row of {@code rowBytes} was written, to any table of the task. */
  public void wrote(long rowBytes) {
    written += rowBytes;
  }

  /** The bytes of the rows written under this budget so far ({@link #wrote}). */
  public long written() {
    return written;
  }

  /** {@code file} was closed by its owner: what it held is free again. */
  public void release(OpenFile file) {
    if (open.remove(file) != null) {
      bytes -= file.bufferedBytes();
    }
  }

  private void closeLargest(OpenFile spare) {
    OpenFile largest = null;
    for (OpenFile f : open.keySet()) {
      if (f != spare && (largest == null || f.bufferedBytes() > largest.bufferedBytes())) {
        largest = f;
      }
    }
    open.remove(largest);
    bytes -= largest.bufferedBytes();
    evictions++;
    largest.closeEarly();
  }

  /** The memory the open files may hold together. */
  public long maxBytes() {
    return maxBytes;
  }

  public int openFiles() {
    return open.size();
  }

  /** Bytes the open files hold, as charged. */
  public long bufferedBytes() {
    return bytes;
  }

  public long evictions() {
    return evictions;
  }
}
