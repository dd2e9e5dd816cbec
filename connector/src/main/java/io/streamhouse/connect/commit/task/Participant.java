package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.commit.coordinator.Coordinator;
import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.routing.TableRouter.Destination;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableFormat;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * The task side of the commit protocol: writes records into per-table writers (skipping what a
 * table already has, invariant <em>skip-what-the-table-has</em>, docs/architecture.md), offers
 * batches when the coordinator asks, keeps them until it decides, hands them in when partitions
 * leave, and knows per topic-partition the oldest offset not yet durable in every table (invariant
 * <em>durable-offsets</em>). What the task's thread and its control thread share is in {@link
 * TaskState}, owned by one at a time; files close without it ({@link BatchCloser}). Requests are
 * answered by {@link CommitRequestAnswerer}, leaving partitions handed over by {@link HandOver}
 * (watched by {@link HandInWatch}), and given partitions held by {@link TakeOverGate}.
 */
public final class Participant {
  private final ControlChannel channel;
  private final TaskState state;
  private final BatchCloser closer;
  private final OwnBatchCommitter ownCommitter;
  private final HandOverWait handOverWait = new HandOverWait();
  private final AnswerEvents answerEvents;
  private final HandInWatch handInWatch;
  private final CommitRequestAnswerer answerer;
  private final HandOver handOver;
  private final TakeOverGate gate;
  private final TransactionExchange transactions = new TransactionExchange();

  /**
   * {@code commitIntervalMs}: the coordinator's {@code commit.interval.ms}, which tells when the
   * next request is due and the batch is cut ahead of it (0 or less: never ahead, the request takes
   * the files out).
   */
  public Participant(
      String connector,
      int taskId,
      Map<String, TableFormat> formats,
      ControlChannel channel,
      FileBudget budget,
      FaultInjection faults,
      long commitIntervalMs,
      long commitTimeoutMs,
      int closeParallelism) {
    this.channel = channel;
    this.state = new TaskState(connector, taskId, formats, budget);
    this.closer = new BatchCloser(connector + "-" + taskId, closeParallelism);
    this.ownCommitter = new OwnBatchCommitter(connector, taskId, formats);
    this.answerEvents = new AnswerEvents(connector, taskId);
    this.handInWatch = new HandInWatch(connector, channel, state, ownCommitter);
    this.answerer =
        new CommitRequestAnswerer(
            connector,
            taskId,
            channel,
            faults,
            state,
            closer,
            handOverWait,
            answerEvents,
            handInWatch,
            transactions,
            commitIntervalMs,
            commitTimeoutMs);
    this.handOver =
        new HandOver(
            connector,
            taskId,
            formats,
            channel,
            state,
            closer,
            ownCommitter,
            handOverWait,
            answerEvents,
            handInWatch);
    this.gate =
        new TakeOverGate(
            connector + "-" + taskId,
            channel.keepsOrder(),
            commitTimeoutMs,
            Math.max(commitIntervalMs, 0) + commitTimeoutMs,
            handOver::writeAfter);
  }

  /**
   * Offers and commits {@code table} (the dead-letter table) first: see {@link AnswerEvents} and
   * {@link Coordinator#commitFirst}. Set before the first record.
   */
  public void commitFirst(TableId table) {
    answerEvents.commitFirst(table);
    ownCommitter.commitFirst(table);
  }

  /**
   * Writes {@code record} (of {@code tp}, its original topic-partition) to {@code to.table()},
   * unless that table already has it. Returns whether it was written.
   *
   * @throws RecordConversionException if the value does not fit the table
   */
  public boolean write(SinkRecord record, TopicPartition tp, Destination to)
      throws RecordConversionException {
    return state.write(record, tp, to, closer);
  }

  /** The task's thread takes the task state for a {@code put} ({@link TaskLock}) until disown. */
  public void own() {
    state.own();
  }

  public void disown() {
    state.disown();
  }

  /** Between records of a {@code put}: a control thread waiting for the state has it first. */
  public void yieldToWaiting() {
    state.yieldToWaiting();
  }

  /**
   * A record of {@code tp} arrived that the task drops unwritten, since every table of its
   * partition holds it: as for a record written, a rewind of {@code tp} has taken effect.
   */
  public void arrived(TopicPartition tp) {
    state.arrived(tp);
  }

  /**
   * {@code record} went to the dead letters instead of {@code to.table()}: the table's range takes
   * it in, so that once the next batch commits, a re-read skips it instead of reporting it again.
   */
  public void skipped(SinkRecord record, TopicPartition tp, Destination to) {
    state.skipped(record, tp, to);
  }

  /**
   * Where all of {@code destinations} continue for {@code tp}: the lowest of their positions (after
   * what this task wrote, else after its batches, else the table's watermark). Empty if one of them
   * has none (a table that does not exist yet, or never had a record of {@code tp}).
   */
  public OptionalLong commonPosition(TopicPartition tp, List<Destination> destinations) {
    return state.commonPosition(tp, destinations);
  }

  /** StartCommit: answers it, see {@link CommitRequestAnswerer#onStartCommit}. */
  public void onStartCommit(long commitId) {
    answerer.onStartCommit(commitId);
  }

  /** Prepare ahead: see {@link CommitRequestAnswerer#cutAheadIfDue}. */
  public void cutAheadIfDue() {
    answerer.cutAheadIfDue();
  }

  /** Milliseconds until {@link #cutAheadIfDue} has something to do; MAX_VALUE for never. */
  public long untilCutAheadMs() {
    return answerer.untilCutAheadMs();
  }

  /** Whether the files of a batch cut ahead are still closing (control thread). */
  boolean closingAhead() {
    return answerer.closingAhead();
  }

  /** Cuts the next request's batch now; false when there was nothing to cut. */
  boolean cutAhead() {
    return answerer.cutAhead();
  }

  /** TableCommitted: forget acknowledged batches; a rejected one makes the task start over. */
  public void onTableCommitted(ControlEvent.TableCommitted committed) {
    handOverWait.decided(committed.commitId(), System.nanoTime());
    state.decide(committed.decisions());
    // After the task's own batches: a held partition may open now.
    gate.decided(committed, TimeUnit.NANOSECONDS.toMillis(System.nanoTime()));
  }

  /** Control thread: a task asked for a round: see {@link CommitRequestAnswerer#onRoundRequest}. */
  public void onRoundRequest(ControlEvent.RoundRequest request) {
    answerer.onRoundRequest(request);
  }

  /** Before partitions leave this task: see {@link HandOver#handOver}. */
  public boolean handOver(long configuredMs) {
    return handOver.handOver(configuredMs);
  }

  /** Before partitions leave this task (a rebalance): see {@link HandOver#handIn}. */
  public boolean handIn(boolean announce, long configuredMs) {
    return handOver.handIn(announce, configuredMs);
  }

  /** Before the task stops: see {@link HandOver#settle}. */
  public boolean settle(long configuredMs) {
    return handOver.settle(configuredMs);
  }

  /** {@code SinkTask.stop}: see {@link HandOver#leave}. */
  public void leave(long configuredMs) {
    handOver.leave(configuredMs);
  }

  /** Partitions new to a task that has writers: see {@link HandOver#startWritersOver}. */
  public boolean startWritersOver(long configuredMs) {
    return handOver.startWritersOver(configuredMs);
  }

  /** Control thread: see {@link HandInWatch#commitOwnIfDue}. */
  public void commitOwnIfDue() {
    handInWatch.commitOwnIfDue();
  }

  /**
   * Partitions given to this task at {@code nowMs}: held until the batches handed in for them are
   * decided ({@link TakeOverGate}), at most the longer of {@code commit.timeout.ms} and {@code
   * handOverMs}; the caller writes none of their records meanwhile. {@code returning}: this task
   * had them and kept its writers and positions, so only other tasks' batches hold them.
   */
  public void hold(
      Collection<TopicPartition> partitions, long nowMs, long handOverMs, boolean returning) {
    gate.hold(partitions, nowMs, handOverMs, returning);
    if (channel.keepsOrder()) {
      channel.wakeup(); // the control thread reads the topic to its end now, not after its poll
    }
  }

  /** Revoked partitions are held no longer. */
  public void release(Collection<TopicPartition> partitions) {
    gate.release(partitions);
  }

  public boolean holds(TopicPartition tp) {
    return gate.holds(tp);
  }

  /** Source transactions released and held (transaction-consistent CDC), between the threads. */
  public TransactionExchange transactions() {
    return transactions;
  }

  /** Owning the task state: the source transactions of what was written since the last cut. */
  public TransactionTally transactionTally() {
    return state.tally();
  }

  /** Batches in flight: preparing, or offered and undecided. */
  public int inFlightBatches() {
    return state.inFlight();
  }

  /** Waits up to {@code ms} for the control thread to note a decision or read up to an end. */
  public void awaitHeldChange(long ms) {
    gate.awaitChange(ms);
  }

  public boolean anyHeld() {
    return gate.anyHeld();
  }

  /**
   * The held partitions that may be read from now on; with {@code mayAdopt} (the task has no
   * writers and the partitions are new to it) also those whose undecided batches it may read on
   * after ({@link TakeOverGate.Opened#adopted}: the caller passes them to {@link #adopt}).
   */
  public List<TakeOverGate.Opened> openable(long nowMs, boolean mayAdopt) {
    return gate.anyHeld()
        ? gate.open(nowMs, state::inFlightCovers, state::inFlight, mayAdopt)
        : List.of();
  }

  /**
   * Reads on after {@code adoptions}, other tasks' undecided batches: they are pending here,
   * offered in every round until decided (a rejected one makes the task start over, like one of its
   * own), and the tables continue after them. Call after {@link #forget}. Returns how many were
   * new.
   */
  public int adopt(List<TakeOverGate.Adoption> adoptions) {
    return state.adopt(adoptions);
  }

  /**
   * Control thread: the coordinator this task answers started round {@code commitId}: a batch a
   * task did not offer again since is its task's last word once the round had its time ({@link
   * TakeOverGate}).
   */
  public void onRoundStarted(long commitId) {
    gate.roundStarted(commitId, TimeUnit.NANOSECONDS.toMillis(System.nanoTime()));
  }

  /** Control thread: a chunk of some task's batch passed on the control topic. */
  public void onBatchChunk(ControlEvent.BatchChunk chunk) {
    gate.offered(chunk, TimeUnit.NANOSECONDS.toMillis(System.nanoTime()));
  }

  /** Control thread, after each poll: see {@link TakeOverGate#sync}. */
  public void syncGate() {
    gate.sync(channel);
  }

  /**
   * The positions known for {@code partitions} (after batches this task offered) are forgotten:
   * they come from the tables' watermarks again, read when next needed.
   */
  public void forget(Collection<TopicPartition> partitions) {
    state.forget(partitions);
  }

  /**
   * Closes the writers (nothing is in them after a hand-in): the next records get writers made
   * after the decisions, younger than the watermarks they write past. False, and nothing closed,
   * when records were written since the hand-in.
   */
  public boolean dropWriters() {
    return state.dropWriters();
  }

  /** True while the task has writers. */
  public boolean hasWriters() {
    return state.hasWriters();
  }

  /**
   * Offsets this task had read and reads again after a rewind: a schema change, a rejected batch,
   * or partitions that left without their batches committed. Records among them are written twice.
   */
  public long rewoundOffsets() {
    return state.rewoundOffsets();
  }

  /** Milliseconds from the last commit request to this task's answer. */
  public long lastAnswerMs() {
    return answerer.lastAnswerMs();
  }

  /** Answers slower than {@code commit.timeout.ms}: their rounds were committed without them. */
  public long lateAnswers() {
    return answerer.lateAnswers();
  }

  /** True when a rejection, a schema change or a failed close asked for {@link #reset}. */
  public boolean resetRequested() {
    return state.resetRequested();
  }

  /**
   * Invariant <em>durable-offsets</em> (docs/architecture.md): per assigned topic-partition, the
   * oldest offset not yet durable in every table; partitions with nothing in flight keep Connect's
   * own position.
   */
  public Map<TopicPartition, Long> safeOffsets(Map<TopicPartition, Long> consumed) {
    return state.safeOffsets(consumed);
  }

  /**
   * Drops every writer and batch in flight, forgets loaded watermarks, and says where each assigned
   * partition must be read again from (the caller seeks there) and how much is read again. Until a
   * record of the new position arrives, {@link #safeOffsets} reports no more than that position.
   */
  public Rewind reset(Map<TopicPartition, Long> consumed) {
    return state.reset(consumed);
  }

  /**
   * Newly assigned partitions start at Connect's committed offsets, which are safe by construction.
   * True when the task has writers: a Paimon writer must not be older than the watermarks of a
   * partition it writes (its sequence numbers would rank a newer row below rows committed since),
   * so the caller hands in what they wrote and starts them over.
   */
  public boolean assigned(Collection<TopicPartition> partitions) {
    return state.assigned(partitions);
  }

  public void revoked(Collection<TopicPartition> partitions) {
    state.revoked(partitions);
  }

  public Set<TopicPartition> assignedPartitions() {
    return state.assignedPartitions();
  }

  public void close() {
    answerer.close();
    state.close();
    closer.close();
  }
}
