package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.task.InFlightBatches.Pending;
import io.streamhouse.connect.commit.task.InFlightBatches.Preparing;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.routing.TableRouter.Destination;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableFormat;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * What a task's thread and its control thread share, and who owns it at a time ({@link TaskLock}):
 * the table writers, the batches in flight, the rewinds, and whether the task must start over. The
 * task's thread owns it for the length of a {@code put} ({@link #own}) and hands it over between
 * records to a control thread that waits for it; every other step owns it for itself, and never
 * while files close.
 */
final class TaskState {
  private final TaskLock lock = new TaskLock();

  private final TableWriters writers;
  private final InFlightBatches inFlight;
  private final RewindLedger ledger = new RewindLedger();
  private final BatchCuts cuts;
  private volatile boolean resetRequested;

  /** See {@link Participant#transactionTally}. */
  TransactionTally tally() {
    return inFlight.tally();
  }

  TaskState(String connector, int taskId, Map<String, TableFormat> formats, FileBudget budget) {
    this.writers = new TableWriters(connector, taskId, formats, budget);
    this.inFlight = new InFlightBatches(connector, taskId, formats);
    this.cuts = new BatchCuts(writers, inFlight);
  }

  /**
   * See {@link Participant#write}. A writer that a schema change rolls over has its files closed
   * here, owning the state, and offered: a round must never offer a later batch of a partition
   * while an earlier one is still closing elsewhere. A table's first writer is opened with the
   * state let go ({@link TableWriters#openWriter}): commit requests are answered while it reads the
   * table.
   */
  boolean write(SinkRecord record, TopicPartition tp, Destination to, BatchCloser closer)
      throws RecordConversionException {
    boolean owned = lock.owned(); // inside a put: no lock taken per record
    if (!owned) {
      lock.lock();
    }
    try {
      TableWriters.Written written = write(record, tp, to, closer, null);
      if (written == TableWriters.Written.NO_WRITER) {
        TableWriters.Opened opened = lock.outside(() -> writers.openWriter(record, to));
        written = write(record, tp, to, closer, opened);
      }
      if (written != TableWriters.Written.WRITTEN) {
        return false;
      }
      cuts.written();
      return true;
    } finally {
      if (!owned) {
        lock.unlock();
      }
    }
  }

  /** {@link #write}, owning the state, with {@code opened} (if any) installed first. */
  private TableWriters.Written write(
      SinkRecord record,
      TopicPartition tp,
      Destination to,
      BatchCloser closer,
      TableWriters.Opened opened)
      throws RecordConversionException {
    // Connect applies a requested seek before its next poll: a record delivered after a reset
    // comes from the new position, and Connect's own offsets now reflect it.
    ledger.arrived(tp);
    if (opened != null && !writers.install(opened)) {
      return TableWriters.Written.SKIPPED; // a tombstone for a table that does not exist yet
    }
    try {
      return writers.write(record, tp, to);
    } finally {
      List<TableWriters.Detached> rolled = writers.takeRolled();
      if (!rolled.isEmpty()) {
        DetachedBatches detached =
            new DetachedBatches(inFlight.preparing(rolled), inFlight.generation(), 0);
        offer(detached, closer.close(detached.batches(), Preparing::files));
      }
    }
  }

  /**
   * The task's thread takes the state for a {@code put}: its steps run without taking it each,
   * until {@link #disown}.
   */
  void own() {
    lock.lock();
  }

  /** The task's thread lets the state go at the end of a {@code put}. */
  void disown() {
    lock.unlock();
  }

  /**
   * Between records of a {@code put}: a control thread that waits for the state has it for its
   * step.
   */
  void yieldToWaiting() {
    lock.yieldToWaiting();
  }

  /**
   * Records written since the last cut, read without owning the state: for the control thread's
   * prepare-ahead schedule.
   */
  long writtenSinceCut() {
    return cuts.writtenSinceCut();
  }

  void arrived(TopicPartition tp) {
    lock.locked(() -> ledger.arrived(tp));
  }

  void skipped(SinkRecord record, TopicPartition tp, Destination to) {
    lock.locked(() -> writers.skipped(record, tp, to));
  }

  OptionalLong commonPosition(TopicPartition tp, List<Destination> destinations) {
    return lock.locked(() -> writers.commonPosition(tp, destinations));
  }

  /**
   * A commit request: empty for one older than the last answered; otherwise the pending batches to
   * offer again and, unless it repeats the last request, the batch cut ahead for it when {@code
   * takeCutAhead}, or, when {@code takeOut}, the batches taken out of the writers now ({@code
   * beforeDetach} runs first, owning the state). A batch cut ahead and not taken stays for the next
   * request (a hand-over's round does not wait for files still closing).
   */
  Optional<RoundAnswer> round(
      long commitId, boolean takeOut, boolean takeCutAhead, Runnable beforeDetach) {
    return lock.locked(() -> cuts.round(commitId, takeOut, takeCutAhead, beforeDetach));
  }

  /**
   * Cuts the next round's batch ahead of its request: takes the files and offset ranges out of
   * every open table ({@code beforeDetach} runs first, owning the state), to be closed without it;
   * records written from now on go into the round after. Empty when nothing was written since the
   * last cut (the request then takes out what came meanwhile) or a cut waits for its request.
   */
  Optional<DetachedBatches> cutAhead(Runnable beforeDetach) {
    return lock.locked(() -> cuts.cutAhead(beforeDetach));
  }

  /**
   * Takes the files and offset ranges out of every open table and closes them owning the state, for
   * a hand-over: a round answered meanwhile offers them with its own batches.
   */
  OfferedBatches detachAndOffer(BatchCloser closer) {
    return lock.locked(
        () -> {
          DetachedBatches detached = cuts.detach();
          return offer(detached, closer.close(detached.batches(), Preparing::files));
        });
  }

  /**
   * The offerable batches not among {@code offered}: those that became pending meanwhile, unless an
   * earlier batch of their partitions is still closing.
   */
  List<Pending> pendingBesides(Set<String> offered) {
    return lock.locked(
        () ->
            inFlight.offerable().stream()
                .filter(p -> !offered.contains(p.batch().batchId()))
                .toList());
  }

  /**
   * The files of {@code detached} closed: the batches become pending, unless a reset since voided
   * them (their files are deleted, nothing is offered) or some failed to close (the closed ones are
   * deleted, the rest stay preparing and hold their offsets back until the reset this asks for).
   */
  OfferedBatches offer(DetachedBatches detached, BatchCloser.Closed<Preparing> closed) {
    lock.lock();
    try {
      if (detached.generation() != inFlight.generation()) {
        closed.files().forEach(inFlight::discard); // the reset rewound to their first offsets
        return new OfferedBatches(List.of(), Map.of(), null);
      }
      if (closed.failure() != null) {
        closed.files().forEach(inFlight::discard);
        resetRequested = true;
        return new OfferedBatches(List.of(), Map.of(), closed.failure());
      }
      List<Pending> offered = new ArrayList<>(closed.files().size());
      closed.files().forEach((batch, files) -> offered.add(inFlight.closed(batch, files)));
      return new OfferedBatches(offered, closed.files(), null);
    } finally {
      lock.signalAll();
      lock.unlock();
    }
  }

  /** The coordinator's (or the task's own) decisions; a rejected batch asks for a reset. */
  void decide(Map<String, BatchPlan.Decision> decisions) {
    lock.locked(
        () -> {
          decisions.forEach(
              (batchId, decision) -> {
                if (inFlight.decided(batchId, decision)) {
                  resetRequested = true;
                }
              });
          lock.signalAll();
        });
  }

  /** The offerable batches, for a commit of the task's own. */
  List<Pending> pending() {
    return lock.locked(() -> inFlight.offerable());
  }

  /** True when nothing is in flight and no reset is asked for. */
  boolean settled() {
    return lock.locked(() -> inFlight.isEmpty() && !resetRequested);
  }

  /** Batches in flight. */
  int inFlight() {
    return lock.locked(() -> inFlight.size());
  }

  /**
   * Waits until no batch is being closed (a cut made ahead on the control thread), a reset is asked
   * for, or {@code deadline} (nanoTime).
   */
  void awaitClosed(long deadline) throws InterruptedException {
    lock.awaitUntil(() -> inFlight.preparingCount() == 0 || resetRequested, deadline);
  }

  long lastAnsweredCommit() {
    return lock.locked(cuts::lastAnsweredCommit);
  }

  boolean resetRequested() {
    return resetRequested;
  }

  /** See {@link Participant#safeOffsets}. */
  Map<TopicPartition, Long> safeOffsets(Map<TopicPartition, Long> consumed) {
    return lock.locked(
        () -> {
          Map<TopicPartition, Long> safe = new HashMap<>(consumed);
          writers.holdBack(safe);
          inFlight.holdBack(safe);
          ledger.holdBack(safe);
          safe.keySet().retainAll(consumed.keySet());
          return safe;
        });
  }

  /** See {@link Participant#reset}. */
  Rewind reset(Map<TopicPartition, Long> consumed) {
    lock.lock();
    try {
      Map<TopicPartition, Long> durable = safeOffsets(consumed);
      writers.abortAll();
      cuts.reset();
      inFlight.clear();
      resetRequested = false;
      return ledger.rewind(durable, consumed);
    } finally {
      lock.signalAll();
      lock.unlock();
    }
  }

  /**
   * Reads on after {@code adoptions} (docs/architecture.md, "Reading on after a hand-in"): each
   * batch is pending here, and the tables continue after its ranges; returns how many were new.
   */
  int adopt(List<TakeOverGate.Adoption> adoptions) {
    return lock.locked(
        () -> {
          int adopted = 0;
          for (TakeOverGate.Adoption a : adoptions) {
            if (inFlight.adopt(a.table(), a.batch())) {
              adopted++;
              a.writeAfter().prepareWriters();
              a.batch().ranges().forEach((tp, range) -> writers.adopt(a.table(), tp, range.to()));
            }
          }
          lock.signalAll();
          return adopted;
        });
  }

  /** Wakes whoever waits for the batches to settle: something else they wait for happened. */
  void wake() {
    lock.locked(lock::signalAll);
  }

  /**
   * Waits until nothing is in flight, a reset is asked for, {@code done} holds (checked whenever
   * the batches change or {@link #wake} is called), or {@code deadline} (nanoTime).
   */
  void awaitSettledOr(BooleanSupplier done, long deadline) throws InterruptedException {
    lock.awaitUntil(() -> inFlight.isEmpty() || resetRequested || done.getAsBoolean(), deadline);
  }

  /** The partitions are assigned; true when the task has writers. */
  boolean assigned(Collection<TopicPartition> partitions) {
    return lock.locked(
        () -> {
          ledger.assigned(partitions);
          return writers.any();
        });
  }

  void revoked(Collection<TopicPartition> partitions) {
    lock.locked(
        () -> {
          ledger.revoked(partitions);
          writers.dropAdopted(partitions);
        });
  }

  /** Whether a batch in flight (preparing or pending) covers {@code tp}. */
  boolean inFlightCovers(TopicPartition tp) {
    return lock.locked(() -> inFlight.covers(tp));
  }

  /** Whether {@code batchId} names a batch of this task in flight. */
  boolean inFlight(String batchId) {
    return lock.locked(() -> inFlight.holds(batchId));
  }

  /** See {@link Participant#forget}. */
  void forget(Collection<TopicPartition> partitions) {
    lock.locked(() -> writers.forget(partitions));
  }

  /** See {@link Participant#dropWriters}. */
  boolean dropWriters() {
    return lock.locked(
        () -> {
          if (writers.anyWritten()) {
            return false;
          }
          writers.closeAll();
          return true;
        });
  }

  boolean hasWriters() {
    return lock.locked(() -> writers.any());
  }

  Set<TopicPartition> assignedPartitions() {
    return lock.locked(() -> ledger.assignedPartitions());
  }

  long rewoundOffsets() {
    return ledger.rewoundOffsets();
  }

  void close() {
    lock.locked(() -> writers.closeAll());
  }
}
