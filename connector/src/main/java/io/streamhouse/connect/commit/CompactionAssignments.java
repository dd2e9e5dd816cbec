package io.streamhouse.connect.commit;

import io.streamhouse.connect.table.CompactionJob;
import io.streamhouse.connect.table.TableId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's record of which task runs which maintenance job: a job goes to one of the tasks
 * that answered the round, by the hash of its key (so the jobs of a table spread over the tasks and
 * a bucket tends to stay with one task), and no job on the same key is handed out again until the
 * first one's result was decided or {@code timeoutMs} passed (its task died or lost the request).
 * So each bucket has at most one compaction out at a time, across rebalances too; a late result of
 * an expired job still cannot merge a bucket twice, because the table's commit refuses a compaction
 * whose merged files are gone.
 */
final class CompactionAssignments {
  private static final Logger LOG = LoggerFactory.getLogger(CompactionAssignments.class);

  private record Out(String jobId, long since) {}

  private final String connector;
  private final long timeoutMs;
  private final Map<String, Out> out = new HashMap<>();
  private final Map<String, List<String>> keysOfJob = new HashMap<>();

  CompactionAssignments(String connector, long timeoutMs) {
    this.connector = connector;
    this.timeoutMs = timeoutMs;
  }

  /** Batches decided in a commit: those that were compaction results free their keys. */
  void decided(Collection<String> batchIds) {
    for (String batchId : batchIds) {
      List<String> keys = keysOfJob.remove(batchId);
      if (keys != null) {
        keys.forEach(k -> out.computeIfPresent(k, (key, o) -> o.jobId().equals(batchId) ? null : o));
      }
    }
  }

  /** The requests that hand {@code jobs} of {@code table} out to {@code tasks}; none when no task answered. */
  List<ControlEvent.CompactRequest> handOut(long commitId, TableId table, List<CompactionJob> jobs,
      Collection<Integer> tasks, long now) {
    if (jobs.isEmpty() || tasks.isEmpty()) {
      return List.of();
    }
    expire(now);
    List<Integer> sorted = tasks.stream().sorted().toList();
    Map<Integer, List<CompactionJob>> byTask = new LinkedHashMap<>();
    int busy = 0;
    for (CompactionJob job : jobs) {
      String key = table + " " + job.key();
      if (out.containsKey(key)) {
        busy++;
        continue;
      }
      int task = sorted.get(Math.floorMod(key.hashCode(), sorted.size()));
      byTask.computeIfAbsent(task, t -> new ArrayList<>()).add(job);
    }
    if (busy > 0) {
      LOG.debug("Connector {}: {} compaction jobs of {} wait for the ones still out", connector, busy, table);
    }
    List<ControlEvent.CompactRequest> requests = new ArrayList<>();
    byTask.forEach((task, list) -> {
      for (int from = 0; from < list.size(); from += ControlEventCodec.MAX_JOBS) {
        List<CompactionJob> chunk = list.subList(from, Math.min(list.size(), from + ControlEventCodec.MAX_JOBS));
        String jobId = connector + "-compact-" + UUID.randomUUID();
        List<String> keys = new ArrayList<>(chunk.size());
        for (CompactionJob job : chunk) {
          String key = table + " " + job.key();
          out.put(key, new Out(jobId, now));
          keys.add(key);
        }
        keysOfJob.put(jobId, keys);
        requests.add(new ControlEvent.CompactRequest(connector, commitId, task, jobId, table, List.copyOf(chunk)));
      }
    });
    return requests;
  }

  private void expire(long now) {
    out.entrySet().removeIf(e -> {
      if (now - e.getValue().since() < timeoutMs) {
        return false;
      }
      LOG.warn("Connector {}: no result of compaction job {} ({}) after {} ms; the key can be handed out again",
          connector, e.getValue().jobId(), e.getKey(), timeoutMs);
      return true;
    });
    keysOfJob.entrySet().removeIf(job -> job.getValue().stream().noneMatch(k -> {
      Out o = out.get(k);
      return o != null && o.jobId().equals(job.getKey());
    }));
  }

  /** Keys with a job out (for tests). */
  int outstanding() {
    return out.size();
  }
}
