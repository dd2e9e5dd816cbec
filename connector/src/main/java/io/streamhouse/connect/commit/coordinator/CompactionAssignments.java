package io.streamhouse.connect.commit.coordinator;

import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.commit.wire.ControlEventCodec;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.TableId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's record of which task runs which maintenance job: a job goes to one of the tasks
 * that answered the round, by the hash of its key (so the jobs of a table spread over the tasks and
 * a bucket tends to stay with one task), and no job on the same key is handed out again until the
 * first one's result was decided or {@code timeoutMs} passed (its task died or lost the request).
 * So each bucket has at most one compaction out at a time, across rebalances too; an expired job
 * goes out again, and a late result of it is passed over (were it not, the table's commit would
 * still refuse a compaction whose merged files are gone).
 */
final class CompactionAssignments {
  private static final Logger LOG = LoggerFactory.getLogger(CompactionAssignments.class);

  private record Out(String jobId, long since, TableId table, CompactionJob job) {}

  /** A job handed out and not decided yet: its table and the task it went to. */
  private record Job(TableId table, int task, List<String> keys) {}

  private final String connector;
  private final long timeoutMs;
  private final Map<String, Out> out = new HashMap<>();
  private final Map<String, Job> jobs = new HashMap<>();

  /**
   * Jobs that came while their key was out: the job out may have read its bucket before the commit
   * that called for them, so they go out once it is decided.
   */
  private final Map<String, Out> deferred = new LinkedHashMap<>();

  CompactionAssignments(String connector, long timeoutMs) {
    this.connector = connector;
    this.timeoutMs = timeoutMs;
  }

  /** Jobs whose results were decided (committed or not): they free their keys. */
  void decided(Collection<String> jobIds) {
    for (String jobId : jobIds) {
      Job job = jobs.remove(jobId);
      if (job != null) {
        job.keys()
            .forEach(k -> out.computeIfPresent(k, (key, o) -> o.jobId().equals(jobId) ? null : o));
      }
    }
  }

  /**
   * The requests that hand {@code jobs} of {@code table} out to {@code tasks}; none when no task
   * answered.
   */
  List<ControlEvent.CompactRequest> handOut(
      long commitId, TableId table, List<CompactionJob> jobs, Collection<Integer> tasks, long now) {
    if (jobs.isEmpty() || tasks.isEmpty()) {
      return List.of();
    }
    List<Integer> sorted = tasks.stream().sorted().toList();
    Map<Integer, List<CompactionJob>> byTask = new LinkedHashMap<>();
    int busy = 0;
    for (CompactionJob job : jobs) {
      String key = table + " " + job.key();
      if (out.containsKey(key)) {
        deferred.put(key, new Out(null, now, table, job));
        busy++;
        continue;
      }
      int task = sorted.get(Math.floorMod(key.hashCode(), sorted.size()));
      byTask.computeIfAbsent(task, t -> new ArrayList<>()).add(job);
    }
    if (busy > 0) {
      LOG.debug("{} compaction jobs of {} wait for the ones still out", busy, table);
    }
    List<ControlEvent.CompactRequest> requests = new ArrayList<>();
    byTask.forEach(
        (task, list) -> {
          for (int from = 0; from < list.size(); from += ControlEventCodec.MAX_JOBS) {
            List<CompactionJob> chunk =
                list.subList(from, Math.min(list.size(), from + ControlEventCodec.MAX_JOBS));
            String jobId = connector + "-compact-" + UUID.randomUUID();
            List<String> keys = new ArrayList<>(chunk.size());
            for (CompactionJob job : chunk) {
              String key = table + " " + job.key();
              out.put(key, new Out(jobId, now, table, job));
              keys.add(key);
            }
            this.jobs.put(jobId, new Job(table, task, keys));
            requests.add(
                new ControlEvent.CompactRequest(
                    connector, commitId, task, jobId, table, List.copyOf(chunk)));
          }
        });
    return requests;
  }

  /** The jobs deferred while their keys were out, now that they are not. */
  List<ControlEvent.CompactRequest> handOutDeferred(
      long commitId, Collection<Integer> tasks, long now) {
    if (tasks.isEmpty() || deferred.isEmpty()) {
      return List.of();
    }
    Map<TableId, List<CompactionJob>> ready = new TreeMap<>();
    for (Iterator<Map.Entry<String, Out>> it = deferred.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Out> e = it.next();
      if (!out.containsKey(e.getKey())) {
        ready.computeIfAbsent(e.getValue().table(), t -> new ArrayList<>()).add(e.getValue().job());
        it.remove();
      }
    }
    List<ControlEvent.CompactRequest> requests = new ArrayList<>();
    ready.forEach((table, list) -> requests.addAll(handOut(commitId, table, list, tasks, now)));
    return requests;
  }

  /**
   * Jobs out for longer than the timeout (their task stopped, died or failed the job) go out again,
   * to the tasks that answered this round, without waiting for their buckets' next writes: on
   * tables with deletion vectors the newest rows stay invisible until their bucket is compacted. A
   * late result of the old job is then passed over.
   */
  List<ControlEvent.CompactRequest> reissueExpired(
      long commitId, Collection<Integer> tasks, long now) {
    if (tasks.isEmpty()) {
      return List.of();
    }
    Map<TableId, List<CompactionJob>> expired = new TreeMap<>();
    for (Iterator<Map.Entry<String, Out>> it = out.entrySet().iterator(); it.hasNext(); ) {
      Out o = it.next().getValue();
      if (now - o.since() >= timeoutMs) {
        expired.computeIfAbsent(o.table(), t -> new ArrayList<>()).add(o.job());
        it.remove();
      }
    }
    if (expired.isEmpty()) {
      return List.of();
    }
    jobs.entrySet()
        .removeIf(
            job ->
                job.getValue().keys().stream()
                    .noneMatch(
                        k -> {
                          Out o = out.get(k);
                          return o != null && o.jobId().equals(job.getKey());
                        }));
    List<ControlEvent.CompactRequest> requests = new ArrayList<>();
    expired.forEach(
        (table, list) -> {
          LOG.warn(
              "No result of {} compaction jobs of {} after {} ms; they go out again",
              list.size(),
              table,
              timeoutMs);
          requests.addAll(handOut(commitId, table, list, tasks, now));
        });
    return requests;
  }

  /**
   * Whether {@code chunk} belongs to the result of a job that is out: the job's id, table and task.
   * Results are taken only then, so a replayed result of a decided job is passed over.
   */
  boolean isResultOfJobOut(ControlEvent.CompactionResultChunk chunk) {
    Job job = jobs.get(chunk.jobId());
    return job != null && job.table().equals(chunk.table()) && job.task() == chunk.taskId();
  }

  boolean isOut(String jobId) {
    return jobs.containsKey(jobId);
  }

  /** The tables with a job out, or one waiting for a job out on its key. */
  Set<TableId> busyTables() {
    Set<TableId> busy = new HashSet<>();
    out.values().forEach(o -> busy.add(o.table()));
    deferred.values().forEach(o -> busy.add(o.table()));
    return busy;
  }

  /** Keys with a job out (for tests). */
  int outstanding() {
    return out.size();
  }
}
