package io.streamhouse.connect.table.iceberg;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * Where a compaction put the rows of the data files it rewrote: for each rewritten file, the
 * positions it dropped (deleted rows), and for the rows it kept, their file and position among the
 * files it wrote. Rows are written in the order they are read, so a kept row's place is its rank
 * among the kept rows of its file, offset by the kept rows of the files before it, cut at the
 * written files' record counts. A keyed writer whose key index points into rewritten files
 * translates it with this map instead of reading its index again ({@link IcebergKeyedTableWriter}).
 *
 * <p>The map is written next to the table's metadata and named in the summary of the compaction's
 * {@code replace} snapshot; what is read back is checked (sizes bounded by the file's length,
 * positions ascending within their file's rows) and refused whole if anything is off.
 */
final class RewriteMap {
  private static final int MAGIC = 0x53484d31; // "SHM1"

  /** Maps larger than this are not read (a 512 MB compaction group makes a few MB). */
  static final long MAX_BYTES = 256L << 20;

  /** One rewritten file: its rows, the positions dropped (ascending), its first kept row's rank. */
  record Input(String location, long rows, long[] dropped, long firstOrdinal) {}

  /** One written file and its rows. */
  record Output(String location, long rows) {}

  /** A kept row's new place. */
  record Place(String location, long position) {}

  private final Map<String, Input> inputs;
  private final List<Output> outputs;
  private final long[] outputStarts;

  RewriteMap(List<Input> inputs, List<Output> outputs) {
    this.inputs = new LinkedHashMap<>();
    inputs.forEach(i -> this.inputs.put(i.location(), i));
    this.outputs = List.copyOf(outputs);
    this.outputStarts = new long[outputs.size()];
    long start = 0;
    for (int i = 0; i < outputs.size(); i++) {
      outputStarts[i] = start;
      start += outputs.get(i).rows();
    }
  }

  /** The normalized locations of the files this compaction rewrote. */
  Set<String> rewritten() {
    Set<String> rewritten = new HashSet<>();
    inputs.keySet().forEach(l -> rewritten.add(IcebergFileCheck.normalized(l)));
    return rewritten;
  }

  /** The normalized locations of the files this compaction wrote. */
  Set<String> written() {
    Set<String> written = new HashSet<>();
    outputs.forEach(o -> written.add(IcebergFileCheck.normalized(o.location())));
    return written;
  }

  /** Whether {@code location} is a file this compaction rewrote. */
  boolean rewrote(String location) {
    return inputs.containsKey(location);
  }

  /**
   * The new place of the row at {@code position} of rewritten file {@code location}; empty when the
   * row was dropped (it was deleted) or is out of the file's range.
   */
  Optional<Place> placeOf(String location, long position) {
    Input in = inputs.get(location);
    if (in == null || position < 0 || position >= in.rows()) {
      return Optional.empty();
    }
    int index = Arrays.binarySearch(in.dropped(), position);
    if (index >= 0) {
      return Optional.empty();
    }
    long droppedBefore = -(index + 1);
    long ordinal = in.firstOrdinal() + position - droppedBefore;
    int out = Arrays.binarySearch(outputStarts, ordinal);
    if (out < 0) {
      out = -(out + 1) - 1;
    }
    if (out < 0 || ordinal - outputStarts[out] >= outputs.get(out).rows()) {
      return Optional.empty();
    }
    return Optional.of(new Place(outputs.get(out).location(), ordinal - outputStarts[out]));
  }

  /**
   * Where the row at {@code position} of written file {@code location} came from (its rewritten
   * file and position there); empty if this compaction did not write {@code location} or the
   * position is out of its range.
   */
  Optional<Place> sourceOf(String location, long position) {
    String wanted = IcebergFileCheck.normalized(location);
    for (int i = 0; i < outputs.size(); i++) {
      if (IcebergFileCheck.normalized(outputs.get(i).location()).equals(wanted)) {
        if (position < 0 || position >= outputs.get(i).rows()) {
          return Optional.empty();
        }
        long ordinal = outputStarts[i] + position;
        for (Input in : inputs.values()) {
          long kept = in.rows() - in.dropped().length;
          if (ordinal >= in.firstOrdinal() && ordinal < in.firstOrdinal() + kept) {
            long row = ordinal - in.firstOrdinal(); // its rank among the file's kept rows
            for (long dropped : in.dropped()) {
              if (dropped > row) {
                break;
              }
              row++;
            }
            return Optional.of(new Place(in.location(), row));
          }
        }
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** Builds the map of one rewrite as its rows stream through, file by file. */
  static final class Builder {
    private final List<Input> inputs = new ArrayList<>();
    private long kept;
    private String location;
    private long rows;
    private long next;
    private long firstOrdinal;
    private long[] dropped = new long[16];
    private int droppedCount;

    /** Starts the rows of {@code file}, which holds {@code rowCount} rows. */
    void startFile(String file, long rowCount) {
      location = file;
      rows = rowCount;
      next = 0;
      firstOrdinal = kept;
      droppedCount = 0;
    }

    /** The next kept row of the current file is at {@code position} (ascending). */
    void kept(long position) {
      if (position < next || position >= rows) {
        throw new IllegalStateException(
            "row position " + position + " of " + location + " out of order or range");
      }
      for (long p = next; p < position; p++) {
        drop(p);
      }
      next = position + 1;
      kept++;
    }

    /** Every row of the current file is kept (a file without deletes). */
    void keptAll() {
      kept += rows - next;
      next = rows;
    }

    /** Ends the current file: its rows after the last kept one were dropped. */
    void endFile() {
      for (long p = next; p < rows; p++) {
        drop(p);
      }
      inputs.add(new Input(location, rows, Arrays.copyOf(dropped, droppedCount), firstOrdinal));
      location = null;
    }

    private void drop(long position) {
      if (droppedCount == dropped.length) {
        dropped = Arrays.copyOf(dropped, dropped.length * 2);
      }
      dropped[droppedCount++] = position;
    }

    /** The map, once {@code written} (in write order) hold every kept row. */
    RewriteMap build(List<Output> written) {
      long total = written.stream().mapToLong(Output::rows).sum();
      if (total != kept) {
        throw new IllegalStateException(
            "the rewrite kept " + kept + " rows but wrote " + total + ": no map");
      }
      return new RewriteMap(inputs, written);
    }
  }

  /** Writes the map to {@code file}. */
  void write(OutputFile file) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(MAGIC);
      out.writeInt(inputs.size());
      for (Input in : inputs.values()) {
        out.writeUTF(in.location());
        out.writeLong(in.rows());
        out.writeLong(in.firstOrdinal());
        out.writeInt(in.dropped().length);
        for (long p : in.dropped()) {
          out.writeLong(p);
        }
      }
      out.writeInt(outputs.size());
      for (Output o : outputs) {
        out.writeUTF(o.location());
        out.writeLong(o.rows());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try (PositionOutputStream stream = file.createOrOverwrite()) {
      bytes.writeTo(stream);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write rewrite map " + file.location(), e);
    }
  }

  /** Reads the map at {@code location}; throws if it is missing, too large or inconsistent. */
  static RewriteMap read(FileIO io, String location) {
    InputFile file = io.newInputFile(location);
    long length = file.getLength();
    if (length > MAX_BYTES) {
      throw new IllegalArgumentException(
          "rewrite map " + location + " has " + length + " bytes, more than " + MAX_BYTES);
    }
    try (InputStream stream = file.newStream();
        DataInputStream in = new DataInputStream(stream)) {
      if (in.readInt() != MAGIC) {
        throw new IllegalArgumentException("not a rewrite map: " + location);
      }
      int inputCount = count(in.readInt(), length, location);
      List<Input> inputs = new ArrayList<>(inputCount);
      long ordinal = 0;
      for (int i = 0; i < inputCount; i++) {
        String path = in.readUTF();
        long rows = in.readLong();
        long first = in.readLong();
        int droppedCount = count(in.readInt(), length / 8, location);
        long[] dropped = new long[droppedCount];
        for (int d = 0; d < droppedCount; d++) {
          dropped[d] = in.readLong();
          if (dropped[d] < 0 || dropped[d] >= rows || (d > 0 && dropped[d] <= dropped[d - 1])) {
            throw new IllegalArgumentException("rewrite map " + location + ": bad positions");
          }
        }
        if (rows < 0 || first != ordinal) {
          throw new IllegalArgumentException("rewrite map " + location + ": bad row counts");
        }
        ordinal += rows - droppedCount;
        inputs.add(new Input(path, rows, dropped, first));
      }
      int outputCount = count(in.readInt(), length, location);
      List<Output> outputs = new ArrayList<>(outputCount);
      long written = 0;
      for (int i = 0; i < outputCount; i++) {
        String path = in.readUTF();
        long rows = in.readLong();
        if (rows < 0) {
          throw new IllegalArgumentException("rewrite map " + location + ": bad row counts");
        }
        written += rows;
        outputs.add(new Output(path, rows));
      }
      if (written != ordinal) {
        throw new IllegalArgumentException(
            "rewrite map " + location + ": kept " + ordinal + " rows, wrote " + written);
      }
      return new RewriteMap(inputs, outputs);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read rewrite map " + location, e);
    }
  }

  private static int count(int value, long bound, String location) {
    if (value < 0 || value > bound) {
      throw new IllegalArgumentException("rewrite map " + location + ": bad count " + value);
    }
    return value;
  }
}
