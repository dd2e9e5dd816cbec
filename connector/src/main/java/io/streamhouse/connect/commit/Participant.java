package io.streamhouse.connect.commit;

import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.OffsetRange;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.routing.TableRouter.Destination;
import io.streamhouse.connect.table.DetachedFiles;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableFormat;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task side of the commit protocol: writes records into per-table writers (skipping what a
 * table already has, invariant <em>skip-what-the-table-has</em> of docs/architecture.md), offers
 * prepared batches when the coordinator asks, keeps them until the coordinator says what became of
 * them, and knows, per topic-partition, the oldest offset not yet durable in every table (invariant
 * <em>durable-offsets</em>). Its state (with its {@link TableWriters} and {@link RewindLedger}) is
 * guarded by one reentrant lock that every method takes itself; {@link #onStartCommit} holds it
 * only to detach and to offer, not while files close. A caller takes {@link #lock()} only to make
 * several calls one step (a whole {@code put}).
 */
public final class Participant {
  private static final Logger LOG = LoggerFactory.getLogger(Participant.class);

  private final String connector;
  private final int taskId;
  private final Map<String, TableFormat> formats;
  private final ControlChannel channel;
  private final FaultInjection faults;
  private final ReentrantLock lock = new ReentrantLock();
  private final CommitAnswers answers;
  private final BatchCloser closer;

  /**
   * Signalled when batches move from preparing to pending or get decided (see {@link #handOver}).
   */
  private final java.util.concurrent.locks.Condition settled = lock.newCondition();

  /** Writers and their schema plans. */
  private final TableWriters writers;

  /** Partitions, rewinds in effect, offsets read again. */
  private final RewindLedger ledger = new RewindLedger();

  private final Map<String, Pending> pending = new LinkedHashMap<>();
  private final Map<String, Preparing> preparing = new LinkedHashMap<>();

  /** Counts resets: batches prepared across one are void. */
  private long generation;

  private volatile boolean resetRequested;
  private long lastAnsweredCommit;

  /** A batch sent to the coordinator and not yet acknowledged. */
  private record Pending(TableId table, OfferedBatch batch) {}

  /** A batch whose files are being closed, to be offered next. */
  private record Preparing(
      TableId table,
      String batchId,
      Map<TopicPartition, OffsetRange> ranges,
      long maxTimestamp,
      DetachedFiles files) {}

  public Participant(
      String connector,
      int taskId,
      Map<String, TableFormat> formats,
      ControlChannel channel,
      FileBudget budget,
      FaultInjection faults,
      long commitTimeoutMs,
      int closeParallelism) {
    this.connector = connector;
    this.answers = new CommitAnswers(connector + "-" + taskId, commitTimeoutMs);
    this.closer = new BatchCloser(connector + "-" + taskId, closeParallelism);
    this.taskId = taskId;
    this.formats = formats;
    this.channel = channel;
    this.faults = faults;
    this.writers = new TableWriters(connector, taskId, formats, budget);
  }

  public ReentrantLock lock() {
    return lock;
  }

  /**
   * Writes {@code record} (of {@code tp}, its original topic-partition) to {@code to.table()},
   * unless that table already has it. Returns whether it was written.
   *
   * @throws RecordConversionException if the value does not fit the table
   */
  public boolean write(SinkRecord record, TopicPartition tp, Destination to)
      throws RecordConversionException {
    lock.lock();
    try {
      // Connect applies a requested seek before its next poll: a record delivered after a reset
      // comes from the new position, and Connect's own offsets now reflect it.
      ledger.arrived(tp);
      TableWriters.Written written = writers.write(record, tp, to);
      if (written == TableWriters.Written.TABLE_CHANGED) {
        resetRequested = true; // the task rewinds and writes with the new schema
      }
      return written == TableWriters.Written.WRITTEN;
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@code record} went to the dead-letter queue instead of {@code to.table()}: the table's range
   * takes it in, so that once the next batch commits, a re-read skips it instead of reporting it
   * again. (Until then a re-read, after a rebalance or a restart, reports it again: the DLQ is
   * at-least-once.)
   */
  public void skipped(SinkRecord record, TopicPartition tp, Destination to) {
    lock.lock();
    try {
      writers.skipped(record, tp, to);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Where all of {@code destinations} continue for {@code tp}: the lowest of their positions (after
   * what this task wrote, else after its batches, else the table's watermark). Empty if one of them
   * has none: a table that does not exist yet, or never had a record of {@code tp}. Right after an
   * assignment or a reset the task has written nothing of {@code tp}: every record below it is then
   * in every one of these tables.
   */
  public OptionalLong commonPosition(TopicPartition tp, List<Destination> destinations) {
    lock.lock();
    try {
      return writers.commonPosition(tp, destinations);
    } finally {
      lock.unlock();
    }
  }

  /**
   * StartCommit: offers at once every batch that is closed and undecided (one closed after an
   * earlier round ended goes into this one), then takes the files out of every open table, closes
   * them and offers them, and reports done with the current assignment. A repeated request for the
   * commit answered last (the coordinator repeats it while partitions are missing, for example
   * after a rebalance) offers the undecided batches and reports again, without preparing anything
   * new.
   *
   * <p>Unlike the other methods, called without {@link #lock()}: it takes the files out of the
   * writers under the lock, closes them without it (the task goes on writing new files meanwhile),
   * and offers them under the lock again. Until then their offsets count as in flight; a reset in
   * between (rebalance, rejection, schema change) makes them void, and they are deleted unoffered.
   */
  public void onStartCommit(long commitId) {
    long requestedAt = System.nanoTime();
    List<Preparing> batches;
    long startedIn;
    int offeredAgain;
    lock.lock();
    try {
      if (commitId < lastAnsweredCommit) {
        return;
      }
      boolean repeated = commitId == lastAnsweredCommit;
      lastAnsweredCommit = commitId;
      offeredAgain = pending.size();
      List<ControlEvent> ready = offerPending(commitId);
      if (repeated) {
        ready.add(taskDone(commitId));
        channel.send(ready);
        return;
      }
      if (!ready.isEmpty()) {
        channel.send(ready);
      }
      faults.at(FaultInjection.Point.BEFORE_PREPARE);
      batches = detachAll();
      startedIn = generation;
    } finally {
      lock.unlock();
    }
    long detachedAt = System.nanoTime();
    faults.at(FaultInjection.Point.FLUSH);
    BatchCloser.Closed<Preparing> result = closer.close(batches, Preparing::files);
    Map<Preparing, PreparedFiles> closed = result.files();
    RuntimeException failure = result.failure();
    long closedAt = System.nanoTime();
    lock.lock();
    try {
      List<ControlEvent> events = new ArrayList<>();
      if (startedIn != generation) {
        // A reset voided the batches (and rewound to their first offsets): nothing of them is
        // offered.
        closed.forEach(this::discard);
      } else if (failure != null) {
        // The batches stay in preparing, holding their offsets back until the reset rewinds to
        // them.
        closed.forEach(this::discard);
        resetRequested = true;
        throw new IllegalStateException(
            "Connector "
                + connector
                + " task "
                + taskId
                + ": could not close the "
                + "data files of tables "
                + batches.stream().map(p -> p.table().toString()).distinct().toList()
                + " for commit "
                + commitId
                + ": "
                + failure,
            failure);
      } else {
        closed.forEach(
            (p, files) -> {
              Pending offered = toPending(p, files);
              events.addAll(
                  BatchAssembler.split(
                      connector, commitId, taskId, offered.table(), offered.batch()));
            });
      }
      events.add(taskDone(commitId));
      channel.send(events);
      answers.answered(
          commitId,
          requestedAt,
          detachedAt,
          closedAt,
          closed.size(),
          closed.values().stream().mapToLong(PreparedFiles::files).sum(),
          closed.values().stream().mapToLong(PreparedFiles::bytes).sum(),
          offeredAgain);
    } finally {
      settled.signalAll();
      lock.unlock();
    }
  }

  /** The chunks of every closed, undecided batch, for commit {@code commitId}. */
  private List<ControlEvent> offerPending(long commitId) {
    List<ControlEvent> events = new ArrayList<>();
    for (Pending p : pending.values()) {
      events.addAll(BatchAssembler.split(connector, commitId, taskId, p.table(), p.batch()));
    }
    return events;
  }

  private ControlEvent.TaskDone taskDone(long commitId) {
    return new ControlEvent.TaskDone(
        connector, commitId, taskId, List.copyOf(ledger.assignedPartitions()));
  }

  /** A batch whose files are closed becomes pending: offered in every round until decided. */
  private Pending toPending(Preparing batch, PreparedFiles files) {
    preparing.remove(batch.batchId());
    Pending p =
        new Pending(
            batch.table(),
            new OfferedBatch(batch.batchId(), taskId, batch.ranges(), files, batch.maxTimestamp()));
    pending.put(batch.batchId(), p);
    return p;
  }

  /**
   * Deletes the files of a batch that is never offered (best effort: they are not in any snapshot).
   */
  private void discard(Preparing batch, PreparedFiles files) {
    try {
      formats.get(batch.table().catalog()).discard(batch.table(), List.of(files));
    } catch (RuntimeException e) {
      LOG.warn(
          "Connector {} task {}: could not delete the uncommitted files of batch {} of table {}: {}",
          connector,
          taskId,
          batch.batchId(),
          batch.table(),
          e.toString());
    }
  }

  /**
   * Takes the written files and offset ranges out of every open table; the writers go on after
   * them.
   */
  private List<Preparing> detachAll() {
    List<Preparing> batches = new ArrayList<>();
    for (TableWriters.Detached d : writers.detachAll()) {
      Preparing p =
          new Preparing(
              d.table(),
              connector + "-" + taskId + "-" + UUID.randomUUID(),
              d.ranges(),
              d.maxTimestamp(),
              d.files());
      preparing.put(p.batchId(), p);
      batches.add(p);
    }
    return batches;
  }

  /** TableCommitted: forget acknowledged batches; a rejected one makes the task start over. */
  public void onTableCommitted(ControlEvent.TableCommitted committed) {
    lock.lock();
    try {
      for (Map.Entry<String, BatchPlan.Decision> d : committed.decisions().entrySet()) {
        Pending p = pending.get(d.getKey());
        if (p == null) {
          continue;
        }
        if (d.getValue() == BatchPlan.Decision.REJECT) {
          LOG.warn(
              "Connector {} task {}: table {} rejected batch {} {}: its offsets do not follow the "
                  + "table's watermarks; rewinding to the last durable offsets",
              connector,
              taskId,
              committed.table(),
              d.getKey(),
              p.batch().ranges());
          resetRequested = true;
        } else {
          pending.remove(d.getKey());
        }
      }
      settled.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Before partitions leave this task (a rebalance, or the task's stop; Connect has already
   * committed their offsets): hands in everything written so far as batches, asks the coordinator
   * for a round, and waits up to {@code timeoutMs} until every batch of the task is decided. True
   * when nothing is left in flight: the next owner of a partition finds its records in the tables
   * and skips them, and {@link #reset} rewinds nothing. False if the wait ran out, a batch was
   * rejected or its files could not be closed: the caller resets, and the records are written again
   * (counted in {@link #rewoundOffsets}).
   *
   * <p>Called under {@link #lock()}; the wait releases it, so that the control thread can answer
   * the round meanwhile.
   */
  public boolean handOver(long timeoutMs) {
    lock.lock();
    try {
      if (timeoutMs <= 0 || resetRequested) {
        return false;
      }
      long started = System.nanoTime();
      List<Preparing> batches = detachAll();
      BatchCloser.Closed<Preparing> result = closer.close(batches, Preparing::files);
      Map<Preparing, PreparedFiles> closed = result.files();
      if (result.failure() != null) {
        LOG.warn(
            "Connector {} task {}: could not close the data files of tables {} to hand them over; the"
                + " task drops its uncommitted work: {}",
            connector,
            taskId,
            batches.stream().map(p -> p.table().toString()).distinct().toList(),
            result.failure().toString());
        closed.forEach(this::discard);
        return false;
      }
      closed.forEach(this::toPending);
      if (settledAll()) {
        return true;
      }
      int handedIn = pending.size() + preparing.size();
      try {
        channel.send(List.of(new ControlEvent.RoundRequest(connector, lastAnsweredCommit, taskId)));
        // Half the time for the coordinator (a hand-over round takes a few hundred ms), the rest
        // for
        // committing alone if it does not answer: it may be moving with task 0 in this very
        // rebalance.
        long deadline = started + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(timeoutMs / 2);
        while (!settledAll() && !resetRequested) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            break;
          }
          settled.awaitNanos(left);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        LOG.warn(
            "Connector {} task {}: could not ask the coordinator for a round: {}",
            connector,
            taskId,
            e.toString());
      }
      if (!settledAll() && !resetRequested && !Thread.currentThread().isInterrupted()) {
        commitOwnBatches();
      }
      long tookMs = (System.nanoTime() - started) / 1_000_000;
      boolean done = settledAll() && !resetRequested;
      if (done) {
        LOG.info(
            "Connector {} task {}: handed over {} batches in {} ms; the next owners skip what they hold",
            connector,
            taskId,
            handedIn,
            tookMs);
      } else {
        LOG.warn(
            "Connector {} task {}: {} of {} handed-over batches were not committed within {} ms{}; the task "
                + "drops its uncommitted work and its records are written again",
            connector,
            taskId,
            pending.size() + preparing.size(),
            handedIn,
            tookMs,
            resetRequested ? " (a batch was rejected)" : "");
      }
      return done;
    } finally {
      lock.unlock();
    }
  }

  /**
   * No coordinator answered the hand-over: the task commits its own pending batches to the tables
   * whose format tolerates a second committer (the contiguity check is atomic with the snapshot, so
   * a batch the coordinator commits too is acknowledged as already present, never added twice).
   */
  private void commitOwnBatches() {
    Map<TableId, List<OfferedBatch>> byTable = new LinkedHashMap<>();
    pending
        .values()
        .forEach(p -> byTable.computeIfAbsent(p.table(), t -> new ArrayList<>()).add(p.batch()));
    long commitId = Math.max(System.currentTimeMillis(), lastAnsweredCommit + 1);
    byTable.forEach(
        (table, batches) -> {
          TableFormat format = formats.get(table.catalog());
          if (!format.toleratesConcurrentCommitters()) {
            return;
          }
          try {
            CommitOutcome outcome = format.commit(table, commitId, batches, false);
            List<PreparedFiles> rejected = new ArrayList<>();
            for (OfferedBatch batch : batches) {
              BatchPlan.Decision decision = outcome.decisions().get(batch.batchId());
              if (decision == BatchPlan.Decision.REJECT) {
                resetRequested = true;
                if (!outcome.refused().contains(batch.batchId())) {
                  rejected.add(batch.files());
                }
              } else if (decision != null) {
                pending.remove(batch.batchId());
              }
            }
            if (!rejected.isEmpty()) {
              format.discard(table, rejected);
            }
            LOG.info(
                "Connector {} task {}: no coordinator answered; committed its own {} batches to {} (commit {}): {}",
                connector,
                taskId,
                batches.size(),
                table,
                commitId,
                outcome.decisions());
          } catch (RuntimeException e) {
            LOG.warn(
                "Connector {} task {}: could not commit its own batches to {} while handing over: {}",
                connector,
                taskId,
                table,
                e.toString());
          }
        });
  }

  private boolean settledAll() {
    return pending.isEmpty() && preparing.isEmpty();
  }

  /**
   * Offsets this task had read and reads again after a rewind: a schema change, a rejected batch,
   * or partitions that left without their batches committed. Records among them are written twice.
   */
  public long rewoundOffsets() {
    return ledger.rewoundOffsets();
  }

  /**
   * Sends the result of compaction job {@code jobId} (handed out in round {@code commitId}) to the
   * coordinator at once, as a batch without offsets; it commits it between rounds. Called by the
   * thread that ran the job.
   */
  public void sendCompactionResult(
      TableId table, long commitId, String jobId, PreparedFiles files) {
    // Not under the lock: the channel is safe for concurrent senders, and the task writes on
    // meanwhile.
    channel.send(
        BatchAssembler.split(
            connector,
            commitId,
            taskId,
            table,
            new OfferedBatch(jobId, taskId, Map.of(), files, -1)));
  }

  /** Milliseconds from the last commit request to this task's answer. */
  public long lastAnswerMs() {
    return answers.lastAnswerMs();
  }

  /** Answers slower than {@code commit.timeout.ms}: their rounds were committed without them. */
  public long lateAnswers() {
    return answers.lateAnswers();
  }

  /** True when a rejection asked for {@link #reset}. */
  public boolean resetRequested() {
    return resetRequested;
  }

  /**
   * Invariant <em>durable-offsets</em> (docs/architecture.md): per assigned topic-partition, the
   * oldest offset not yet durable in every table; partitions with nothing in flight keep Connect's
   * own position.
   */
  public Map<TopicPartition, Long> safeOffsets(Map<TopicPartition, Long> consumed) {
    lock.lock();
    try {
      Map<TopicPartition, Long> safe = new HashMap<>(consumed);
      writers.holdBack(safe);
      for (Pending p : pending.values()) {
        p.batch().ranges().forEach((tp, r) -> safe.merge(tp, r.from(), Math::min));
      }
      for (Preparing p : preparing.values()) {
        p.ranges().forEach((tp, r) -> safe.merge(tp, r.from(), Math::min));
      }
      ledger.holdBack(safe);
      safe.keySet().retainAll(consumed.keySet());
      return safe;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Drops every writer and pending batch, forgets loaded watermarks and returns where each assigned
   * partition must be re-read from (the caller seeks there). Until a record of the new position
   * arrives, {@link #safeOffsets} reports no more than that position.
   */
  public Map<TopicPartition, Long> reset(Map<TopicPartition, Long> consumed) {
    lock.lock();
    try {
      Map<TopicPartition, Long> durable = safeOffsets(consumed);
      writers.abortAll();
      pending.clear();
      preparing.clear();
      generation++;
      resetRequested = false;
      return ledger.rewind(durable, consumed);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Newly assigned partitions start at Connect's committed offsets, which are safe by construction.
   */
  public void assigned(java.util.Collection<TopicPartition> partitions) {
    lock.lock();
    try {
      ledger.assigned(partitions);
    } finally {
      lock.unlock();
    }
  }

  public void revoked(java.util.Collection<TopicPartition> partitions) {
    lock.lock();
    try {
      ledger.revoked(partitions);
    } finally {
      lock.unlock();
    }
  }

  /** True while some table has a writer (records written since the last reset). */
  public boolean hasWriters() {
    lock.lock();
    try {
      return writers.any();
    } finally {
      lock.unlock();
    }
  }

  public Set<TopicPartition> assignedPartitions() {
    lock.lock();
    try {
      return ledger.assignedPartitions();
    } finally {
      lock.unlock();
    }
  }

  public void close() {
    lock.lock();
    try {
      writers.closeAll();
    } finally {
      lock.unlock();
      closer.close();
    }
  }
}
