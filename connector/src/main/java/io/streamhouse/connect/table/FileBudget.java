package io.streamhouse.connect.table;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The open data files of one task, over all its tables: at most {@code max}; opening one more
 * closes the least recently written. Keeps memory bounded however many partitions tables have.
 */
public final class FileBudget {
  /** An open file that can be closed early (its data is kept as a finished file). */
  public interface OpenFile {
    void closeEarly();
  }

  private final int max;
  private final LinkedHashMap<OpenFile, Boolean> open = new LinkedHashMap<>(16, 0.75f, true);
  private long evictions;
  /** The file touched last: touching it again changes nothing (the common case, one per record). */
  private OpenFile last;

  public FileBudget(int max) {
    this.max = max;
  }

  /** Marks {@code file} as just written; closes the least recently written file past the limit. */
  public void touch(OpenFile file) {
    if (file == last) {
      return;
    }
    last = file;
    if (open.put(file, Boolean.TRUE) == null) {
      while (open.size() > max) {
        Iterator<Map.Entry<OpenFile, Boolean>> eldest = open.entrySet().iterator();
        OpenFile victim = eldest.next().getKey();
        eldest.remove();
        evictions++;
        if (victim == last) {
          last = null;
        }
        victim.closeEarly();
      }
    }
  }

  /** {@code file} was closed by its owner. */
  public void release(OpenFile file) {
    open.remove(file);
    if (file == last) {
      last = null;
    }
  }

  public int openFiles() {
    return open.size();
  }

  public long evictions() {
    return evictions;
  }
}
