package io.streamhouse.connect.table;

import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.TableId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of the batches offered for one table commit, decoded and checked before anything is
 * committed: a batch whose payload does not decode, whose files are not the table's (outside its
 * data location, another format, an unknown partition spec), or that names a file another offered
 * batch names too, is refused with an ERROR naming the task, the table and the path. Refused
 * batches are rejected and their files are left alone: they may belong to someone else.
 *
 * @param <F> a format's file description
 */
public final class CheckedBatches<F> {
  private static final Logger LOG = LoggerFactory.getLogger(CheckedBatches.class);

  /** How a format reads and checks the files of a batch. */
  public interface FileReader<F> {
    /** The files of {@code batch}; an exception whose message says why the payload is refused. */
    List<F> read(OfferedBatch batch) throws Exception;

    /**
     * Where the file is, as the table will reference it (duplicates are found by it); null for an
     * entry that is no file.
     */
    String path(F file);

    /** Why the file may not go into the table, or empty. */
    Optional<String> problem(F file);

    /**
     * Whether the first batch naming a file keeps it: a later batch naming it too is refused, the
     * first stays accepted, and a refused batch holds on to none of its files. For batches nobody
     * offers again (the take-over from the Apache sink), where refusing the first loses it. By
     * default a file named twice refuses both batches.
     */
    default boolean firstNamingKeepsFile() {
      return false;
    }

    /** The batch as log lines name it: {@code batch <id> of task <task>}. */
    default String describe(OfferedBatch batch) {
      return "batch " + batch.batchId() + " of task " + batch.taskId();
    }
  }

  private final Map<String, List<F>> accepted = new LinkedHashMap<>();
  private final Set<String> refused = new LinkedHashSet<>();

  private CheckedBatches() {}

  public static <F> CheckedBatches<F> check(
      String connector, TableId table, List<OfferedBatch> batches, FileReader<F> reader) {
    CheckedBatches<F> checked = new CheckedBatches<>();
    Map<String, OfferedBatch> owners = new HashMap<>();
    for (OfferedBatch batch : batches) {
      List<F> files;
      try {
        files = reader.read(batch);
      } catch (Exception e) {
        checked.refuse(
            connector, table, reader, batch, "its file list cannot be read: " + e.getMessage());
        continue;
      }
      String problem = null;
      for (F file : files) {
        String path = reader.path(file);
        Optional<String> wrong = reader.problem(file);
        if (wrong.isPresent()) {
          problem = (path == null ? "" : "file " + path + " ") + wrong.get();
          break;
        }
        if (path == null) {
          continue;
        }
        OfferedBatch owner = owners.putIfAbsent(path, batch);
        if (owner != null) {
          problem = "file " + path + " is named twice (also by " + reader.describe(owner) + ")";
          if (owner != batch
              && !reader.firstNamingKeepsFile()
              && checked.accepted.remove(owner.batchId()) != null) {
            checked.refuse(
                connector,
                table,
                reader,
                owner,
                "file " + path + " is named twice (also by " + reader.describe(batch) + ")");
          }
          break;
        }
      }
      if (problem != null) {
        checked.refuse(connector, table, reader, batch, problem);
        if (reader.firstNamingKeepsFile()) {
          owners.values().removeIf(owner -> owner == batch);
        }
      } else {
        checked.accepted.put(batch.batchId(), files);
      }
    }
    return checked;
  }

  private void refuse(
      String connector, TableId table, FileReader<F> reader, OfferedBatch batch, String why) {
    refused.add(batch.batchId());
    LOG.error(
        "Refused {} for table {}: {}. It is rejected and its files are " + "left as they are",
        reader.describe(batch),
        table,
        why);
  }

  /** The files of a batch that passed, or null. */
  public List<F> files(String batchId) {
    return accepted.get(batchId);
  }

  /** The batches that passed, in the order offered. */
  public List<OfferedBatch> accepted(List<OfferedBatch> offered) {
    List<OfferedBatch> result = new ArrayList<>();
    for (OfferedBatch b : offered) {
      if (accepted.containsKey(b.batchId())) {
        result.add(b);
      }
    }
    return result;
  }

  /** {@code planned} plus a rejection for each refused batch. */
  public Map<String, BatchPlan.Decision> withRefused(Map<String, BatchPlan.Decision> planned) {
    if (refused.isEmpty()) {
      return planned;
    }
    Map<String, BatchPlan.Decision> all = new LinkedHashMap<>(planned);
    refused.forEach(b -> all.put(b, BatchPlan.Decision.REJECT));
    return all;
  }

  public Set<String> refused() {
    return refused;
  }
}
