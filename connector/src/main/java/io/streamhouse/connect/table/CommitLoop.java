package io.streamhouse.connect.table;

import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit of offered batches to one table, the same for every format: read the watermarks of the
 * connector's latest snapshot, plan (invariant <em>contiguity</em>, docs/architecture.md), commit
 * the applying batches in one snapshot with the new watermarks, and plan again when another commit
 * won the race, at most {@link #MAX_PLAN_ATTEMPTS} times. When the attempts run out the commit
 * fails with {@link ConflictsExhaustedException}; the coordinator then leaves the batches offered
 * for the next round. A format supplies only how to read its watermarks and how to make one
 * snapshot. The loop alone ({@link #retry}) serves a commit that plans otherwise (the take-over
 * from the Apache Iceberg sink).
 */
public final class CommitLoop {
  /** Attempts before a table that keeps changing under the commit fails it. */
  public static final int MAX_PLAN_ATTEMPTS = 10;

  private static final Logger LOG = LoggerFactory.getLogger(CommitLoop.class);

  private CommitLoop() {}

  /** What one format does in one attempt. */
  public interface Table {
    /**
     * Reads the table afresh: the watermarks of the connector's latest snapshot, and whatever the
     * commit needs.
     */
    Watermarks refresh();

    /**
     * Commits the files of {@code applying} in one snapshot whose summary holds {@code summary}
     * (watermarks, commit id, valid-through), atomically with the check that the connector's latest
     * snapshot is still the one {@link #refresh} read.
     *
     * @throws ConcurrentCommitException when another commit got in first; the loop plans again
     */
    Committed commit(List<OfferedBatch> applying, Map<String, String> summary)
        throws ConcurrentCommitException;

    /**
     * The ids of batches in {@code applying} that the table, as {@link #refresh} read it, cannot
     * take although they continue its watermarks (a keyed batch whose positions are out of date);
     * they are rejected and the plan is made again without them. By default none.
     */
    default Set<String> refuse(List<OfferedBatch> applying) {
      return Set.of();
    }
  }

  /** The snapshot one attempt made, what it holds, and the maintenance it calls for. */
  public record Committed(
      long snapshotId, long records, int files, List<CompactionJob> compactions) {}

  /** Another commit changed the table between the plan and the commit. */
  public static class ConcurrentCommitException extends Exception {
    private static final long serialVersionUID = 1L;

    public ConcurrentCommitException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The table kept changing under every attempt. */
  public static final class ConflictsExhaustedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ConflictsExhaustedException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * One attempt of a commit: read the table afresh, plan, and commit in one snapshot.
   *
   * @param <R> what a commit gives
   */
  @FunctionalInterface
  public interface Attempt<R> {
    /**
     * @param attempt 1 for the first attempt, then 2, 3, ...
     * @throws ConcurrentCommitException when another commit got in first; the loop plans again
     */
    R run(int attempt) throws ConcurrentCommitException;
  }

  /**
   * Commits {@code batches} (each with offsets; checked before) to {@code id}; {@code refused}
   * names the batches the checks refused, reported as rejected without touching the table.
   */
  public static CommitOutcome run(
      String connector,
      TableId id,
      long commitId,
      List<OfferedBatch> batches,
      CheckedBatches<?> checked,
      boolean fullRound,
      SnapshotKeys keys,
      Table table) {
    List<BatchPlan.Offer> offers =
        batches.stream().map(b -> new BatchPlan.Offer(b.batchId(), b.ranges())).toList();
    return retry(
        connector,
        id,
        "its batches stay offered for the next round",
        attempt -> {
          Watermarks current = table.refresh();
          BatchPlan plan = BatchPlan.of(current, offers);
          Set<String> refused = table.refuse(applying(batches, plan));
          if (!refused.isEmpty()) {
            // Without them; batches that continued them no longer continue the table either.
            plan =
                BatchPlan.of(
                    current, offers.stream().filter(o -> !refused.contains(o.batchId())).toList());
          }
          Map<String, BatchPlan.Decision> decisions =
              withRejected(checked.withRefused(plan.decisions()), refused);
          if (!plan.changesTable()) {
            return new CommitOutcome(
                decisions, current, OptionalLong.empty(), 0, 0, checked.refused());
          }
          List<OfferedBatch> applying = applying(batches, plan);
          Map<String, String> summary = new LinkedHashMap<>();
          summary.put(keys.watermarks(), plan.after().encode());
          summary.put(keys.commitId(), Long.toString(commitId));
          long validThrough =
              applying.stream().mapToLong(OfferedBatch::maxRecordTimestamp).min().orElse(-1);
          if (fullRound && validThrough >= 0) {
            summary.put(keys.validThrough(), Long.toString(validThrough));
          }
          Committed committed = table.commit(applying, summary);
          LOG.info(
              "Committed {} files ({} records) to {} in snapshot {} (commit {}): {}",
              committed.files(),
              committed.records(),
              id,
              committed.snapshotId(),
              commitId,
              decisions);
          return new CommitOutcome(
              decisions,
              plan.after(),
              OptionalLong.of(committed.snapshotId()),
              committed.records(),
              committed.files(),
              checked.refused(),
              committed.compactions());
        });
  }

  private static List<OfferedBatch> applying(List<OfferedBatch> batches, BatchPlan plan) {
    return batches.stream()
        .filter(b -> plan.decision(b.batchId()) == BatchPlan.Decision.APPLY)
        .toList();
  }

  private static Map<String, BatchPlan.Decision> withRejected(
      Map<String, BatchPlan.Decision> decisions, Set<String> rejected) {
    if (rejected.isEmpty()) {
      return decisions;
    }
    Map<String, BatchPlan.Decision> all = new LinkedHashMap<>(decisions);
    rejected.forEach(b -> all.put(b, BatchPlan.Decision.REJECT));
    return all;
  }

  /**
   * The loop itself, for any commit that plans against what the table holds: runs {@code attempt}
   * until it returns, again after each commit that got in first, at most {@link #MAX_PLAN_ATTEMPTS}
   * times ({@link Retries}); then fails with {@link ConflictsExhaustedException}, whose message
   * ends with {@code whenExhausted} (what becomes of what was to be committed).
   */
  public static <R> R retry(
      String connector, Object table, String whenExhausted, Attempt<R> attempt) {
    try {
      return Retries.immediately(
          MAX_PLAN_ATTEMPTS,
          ConcurrentCommitException.class,
          n -> {
            try {
              return attempt.run(n);
            } catch (ConcurrentCommitException e) {
              LOG.warn(
                  "Another commit to {} got in first (attempt {} of {}); planning again: {}",
                  table,
                  n,
                  MAX_PLAN_ATTEMPTS,
                  e.getMessage());
              throw e;
            }
          });
    } catch (ConcurrentCommitException last) {
      throw new ConflictsExhaustedException(
          "Connector "
              + connector
              + ": table "
              + table
              + " changed under "
              + MAX_PLAN_ATTEMPTS
              + " commit attempts in a row; "
              + whenExhausted,
          last);
    }
  }
}
