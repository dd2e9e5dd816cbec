package io.streamhouse.connect;

import io.streamhouse.connect.commit.task.Participant;
import io.streamhouse.connect.commit.task.Rewind;
import io.streamhouse.connect.commit.task.TakeOverGate;
import io.streamhouse.connect.errors.BadRecordHandler;
import io.streamhouse.connect.errors.DeadLetterStage;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.monitor.TaskMetrics;
import io.streamhouse.connect.routing.TableRouter;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a task does with Connect's calls: routes each record to its tables and writes it, keeps the
 * task's consumed offsets, seeks past what the tables hold already (invariant
 * <em>skip-what-the-table-has</em>, docs/architecture.md), rewinds when a batch was rejected, hands
 * in its work when partitions are revoked, and reports only durable offsets. Only Connect's task
 * thread calls it; the participant guards what it shares with the control thread.
 */
final class RecordIntake {
  private static final Logger LOG = LoggerFactory.getLogger(RecordIntake.class);

  /**
   * Where Connect's consumer reads next: {@code SinkTaskContext.offset}, or a test's record of it.
   */
  interface Seeker {
    void seek(Map<TopicPartition, Long> offsets);
  }

  /** How long each wait of {@code open} for held partitions is, between looks at them. */
  private static final long HELD_WAIT_MS = 200;

  private final String taskName;
  private final Participant participant;
  private final Seeker seeker;
  private final long handOverTimeoutMs;
  private final TransactionGate transactions; // null: not transaction-consistent

  private final SeekPastTables seekPast;
  private final RecordWriter writer;

  private final Map<TopicPartition, Long> consumed = new HashMap<>();

  /** In {@link #put}: no record of the partition written since its position was last noted. */
  private static final long NOTHING_NEW = -1;

  /**
   * The partitions the task handed in when its last revocation took all it had, its writers kept
   * (empty) and its positions after its batches in flight: if the next assignment brings back only
   * these, it goes on after its own batches at once. Null otherwise.
   */
  private Set<TopicPartition> returnable;

  /** Whether the partitions of the assignment in progress return to this task (see above). */
  private boolean returning;

  RecordIntake(
      String taskName,
      Participant participant,
      TableRouter router,
      BadRecordHandler badRecords,
      DeadLetters deadLetters,
      TaskMetrics metrics,
      Seeker seeker,
      long handOverTimeoutMs,
      boolean tablesKnownByTopic,
      TransactionGate transactions) {
    this.taskName = taskName;
    this.participant = participant;
    this.seeker = seeker;
    this.handOverTimeoutMs = handOverTimeoutMs;
    this.transactions = transactions;
    this.writer =
        new RecordWriter(participant, router, badRecords, deadLetters, metrics, transactions);
    this.seekPast = new SeekPastTables(participant, router, seeker, tablesKnownByTopic);
  }

  /**
   * {@code SinkTask.open}: partitions assigned to the task. Returns once the batches their last
   * owner handed in are decided ({@link Participant#hold}; at most the longer of {@code
   * commit.timeout.ms} and {@code commit.handover-timeout.ms}), so that they are read from the
   * tables' watermarks on; or at once, when the task has no writers and may read on after those
   * batches ({@link Participant#adopt}). Partitions that return to the task after an eager
   * rebalance took them (all of the assignment among those it just had) wait for other tasks'
   * batches only: the task goes on after its own with the writers it kept. It waits here, not by
   * pausing them: with every partition of a task paused, Connect's poll blocks until its next
   * offset commit, and records delivered meanwhile would have to be sought back and converted again
   * (a record that fails conversion would reach the dead-letter queue twice).
   */
  void assigned(Collection<TopicPartition> partitions) {
    participant.assigned(partitions);
    returning = returnable != null && !partitions.isEmpty() && returnable.containsAll(partitions);
    if (returnable != null && !returning) {
      // Partitions new to the task: its writers may be older than what another task committed
      // for them. Nothing was written since the hand-in; later writers start after the decisions.
      participant.dropWriters();
    }
    returnable = null;
    if (!returning && participant.hasWriters() && handOverTimeoutMs > 0) {
      // Cooperative rebalancing adds partitions to a running task: where its formats allow, its
      // writers start over above what it hands in now, and it reads on at once (else see openHeld).
      participant.startWritersOver(handOverTimeoutMs);
    }
    participant.hold(partitions, nowMs(), handOverTimeoutMs, returning);
    openHeld();
    while (participant.anyHeld() && !Thread.currentThread().isInterrupted()) {
      participant.awaitHeldChange(HELD_WAIT_MS);
      openHeld();
    }
  }

  /** Opens the held partitions whose hand-over is decided (or waited for long enough). */
  private void openHeld() {
    // Partitions new to a task without writers may be read on after the batches handed in for
    // them, before their decision (a task with writers hands in and starts them over instead).
    boolean mayAdopt = !returning && !participant.hasWriters();
    List<TakeOverGate.Opened> opened = participant.openable(nowMs(), mayAdopt);
    if (opened.isEmpty()) {
      return;
    }
    List<TopicPartition> partitions = opened.stream().map(TakeOverGate.Opened::partition).toList();
    long waitedMs = opened.stream().mapToLong(TakeOverGate.Opened::waitedMs).max().orElse(0);
    List<TopicPartition> expired =
        opened.stream().filter(TakeOverGate.Opened::expired).map(o -> o.partition()).toList();
    List<TakeOverGate.Adoption> adoptions =
        opened.stream().flatMap(o -> o.adopted().stream()).toList();
    if (!adoptions.isEmpty()) {
      LOG.info(
          "Reads {} from now on, {} ms after their assignment, after {} batches handed in for"
              + " them and not decided yet (it offers them in its rounds until they are)",
          partitions,
          waitedMs,
          adoptions.stream().map(a -> a.batch().batchId()).distinct().count());
    } else if (expired.isEmpty()) {
      LOG.info("Reads {} from now on, {} ms after their assignment", partitions, waitedMs);
    } else {
      LOG.warn(
          "Reads {} after {} ms without a decision on the batches handed in for {} (their task"
              + " stopped before its round?): a batch committed later is rejected against this"
              + " task's, which then rewinds",
          partitions,
          waitedMs,
          expired);
    }
    if (returning) {
      // Back with the writers and positions it had: it goes on after its own batches, which stay
      // in flight and are committed first; Connect's position, the committed offset, is below
      // them, and the first records seek past what the task wrote.
      seekPast.watch(partitions);
    } else if (participant.hasWriters()) {
      // Cooperative rebalancing adds partitions to a running task. A Paimon writer must not be
      // older than the watermarks of a partition it writes (its sequence numbers would rank a
      // newer row below rows committed since), nor an Iceberg key index: start the writers over,
      // after handing in what they wrote, so that the rewind has nothing to read again.
      participant.handOver(handOverTimeoutMs);
      rewind();
    } else {
      participant.forget(partitions); // another task may have committed them since
      participant.adopt(adoptions);
      seekPast.watch(partitions);
    }
  }

  private static long nowMs() {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
  }

  /**
   * {@code SinkTask.put}: writes every record to the tables it routes to, owning the task state
   * meanwhile ({@link Participant#own}).
   */
  void put(Collection<SinkRecord> records) {
    participant.own();
    try {
      putOwned(records);
    } finally {
      participant.disown();
    }
  }

  private void putOwned(Collection<SinkRecord> records) {
    if (transactions != null) {
      writeReleased(transactions.released());
    }
    // Connect counts every record of this batch as delivered: a rewind in the middle of it must
    // also take the partitions this task sees for the first time back to their first record.
    // A batch holds runs of records per partition: the maps change once per run, not per record.
    TopicPartition tp = null;
    Map<TopicPartition, SinkRecord> firstSeen = null;
    Map<TopicPartition, Long> lastSeen = null;
    for (SinkRecord record : records) {
      TopicPartition of = partitionOf(record, tp);
      if (of != tp) {
        consumed.putIfAbsent(of, record.originalKafkaOffset());
        tp = of;
      }
      if (seekPast.watches(tp)) {
        if (firstSeen == null) {
          firstSeen = new HashMap<>();
          lastSeen = new HashMap<>();
        }
        firstSeen.putIfAbsent(tp, record);
        lastSeen.put(tp, record.originalKafkaOffset());
      }
    }
    if (participant.resetRequested()) {
      rewind();
      return;
    }
    if (firstSeen != null) {
      seekPast.seek(firstSeen, lastSeen);
    }
    tp = null;
    long next = NOTHING_NEW; // the offset after tp's last record written, not yet in consumed
    try {
      for (SinkRecord record : records) {
        TopicPartition of = partitionOf(record, tp);
        if (of != tp) {
          noteConsumed(tp, next);
          tp = of;
          next = NOTHING_NEW;
        }
        TransactionGate.Admission admission = admit(record, tp);
        if (admission == TransactionGate.Admission.HOLD) {
          continue; // not consumed: written once released, or read again
        }
        if (admission == TransactionGate.Admission.WRITE) {
          writer.write(record, tp);
        }
        participant.yieldToWaiting();
        if (participant.resetRequested()) {
          noteConsumed(tp, next);
          next = NOTHING_NEW;
          rewind(); // a batch was rejected or failed to close: start over, this record included
          return;
        }
        next = record.originalKafkaOffset() + 1;
      }
    } finally {
      noteConsumed(tp, next);
      if (transactions != null) {
        transactions.afterPut();
      }
    }
  }

  /** Transaction events a commit request released (see {@link TransactionGate}), in order. */
  private void writeReleased(List<SinkRecord> released) {
    for (SinkRecord record : released) {
      TopicPartition tp = partitionOf(record, null);
      try {
        if (transactions.admitReleased(record) == TransactionGate.Admission.WRITE) {
          writer.write(record, tp);
        }
      } catch (RecordConversionException e) {
        writer.badRecord(record, tp, null, DeadLetterStage.ROUTE, e);
      }
      consumed.put(tp, record.originalKafkaOffset() + 1);
    }
  }

  private TransactionGate.Admission admit(SinkRecord record, TopicPartition tp) {
    if (transactions == null) {
      return TransactionGate.Admission.WRITE;
    }
    try {
      return transactions.admit(record, tp, writer::inEveryTable);
    } catch (RecordConversionException e) {
      writer.badRecord(
          record, tp, null, DeadLetterStage.ROUTE, e); // malformed transaction metadata
      return TransactionGate.Admission.SKIP;
    }
  }

  private void noteConsumed(TopicPartition tp, long next) {
    if (next != NOTHING_NEW) {
      consumed.put(tp, next);
    }
  }

  /**
   * {@code SinkTask.preCommit}: per partition, the offset Connect may commit (invariant
   * <em>durable-offsets</em>).
   */
  Map<TopicPartition, Long> durableOffsets(Map<TopicPartition, Long> current) {
    if (participant.resetRequested()) {
      rewind();
    }
    Map<TopicPartition, Long> safe = participant.safeOffsets(current);
    if (transactions != null) {
      transactions.holdBack(safe);
    }
    return safe;
  }

  /**
   * {@code SinkTask.close}: partitions revoked from the task (a rebalance, or its stop). It hands
   * in what it wrote and goes on at once; the next owners wait for the decision ({@link
   * Participant#handIn}). When the task keeps no partition its writers close: writers made later
   * start after the decisions.
   */
  void revoked(Collection<TopicPartition> partitions) {
    if (transactions != null) {
      transactions.forget(partitions); // resumed while still assigned
    }
    participant.release(partitions);
    boolean handedIn = handOverTimeoutMs > 0 && participant.handIn(true, handOverTimeoutMs);
    participant.revoked(partitions);
    Rewind rewind = handedIn ? null : participant.reset(consumed);
    partitions.forEach(consumed::remove);
    seekPast.forget(partitions);
    returnable = null;
    if (handedIn) {
      if (participant.assignedPartitions().isEmpty()) {
        // An eager rebalance takes every partition. Writers stay (empty) while only these come
        // back: a Paimon writer's sequence numbers, an Iceberg key index go on after its batches.
        returnable = Set.copyOf(partitions);
      }
      return;
    }
    if (rewind.offsetsReadAgain() > 0) {
      LOG.warn(
          "{} offsets of uncommitted work are read again after the revocation",
          rewind.offsetsReadAgain());
    }
    if (!rewind.positions().isEmpty()) {
      seeker.seek(rewind.positions());
    }
    seekPast.watch(participant.assignedPartitions());
  }

  /**
   * {@code SinkTask.stop}: waits, up to the hand-over timeout, until what the task handed in is
   * decided, and commits it itself where the format allows when no coordinator answers; or, where
   * the next owners may read on after its batches, until it offered them in a round ({@link
   * Participant#leave}).
   */
  void stopping() {
    if (handOverTimeoutMs > 0) {
      participant.leave(handOverTimeoutMs);
    }
  }

  /**
   * The record's original topic-partition; {@code last} again when it is the same (batches come by
   * partition).
   */
  private static TopicPartition partitionOf(SinkRecord record, TopicPartition last) {
    if (last != null
        && last.partition() == record.originalKafkaPartition()
        && last.topic().equals(record.originalTopic())) {
      return last;
    }
    return new TopicPartition(record.originalTopic(), record.originalKafkaPartition());
  }

  private void rewind() {
    if (transactions != null) {
      transactions.reset();
    }
    Rewind rewind = participant.reset(consumed);
    LOG.warn(
        "Rewinds {} ({} offsets to read again)", rewind.positions(), rewind.offsetsReadAgain());
    consumed.putAll(rewind.positions());
    seeker.seek(rewind.positions());
    seekPast.watch(participant.assignedPartitions());
  }
}
