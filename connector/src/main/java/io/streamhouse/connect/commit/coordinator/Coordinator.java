package io.streamhouse.connect.commit.coordinator;

import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.commit.wire.ChunkAssembler;
import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.table.TableFormat;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single committer of the connector, in task 0: every commit interval it asks all tasks for
 * their batches, waits until every consumed partition reported (or the timeout), commits one
 * snapshot per table and tells the tasks what each table decided. Compaction, the jobs each commit
 * calls for and their results, is the {@link CompactionCoordinator}'s, which it calls between and
 * after its rounds. The tables of a round are committed by its {@link RoundCommitter}; the later
 * coordinators it heard, for which it stands down, are in its {@link LaterCoordinators}.
 */
public final class Coordinator implements Runnable, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Coordinator.class);

  private final String connector;
  private final Map<String, TableFormat> formats;
  private final ControlChannel channel;
  private final Supplier<Set<TopicPartition>> consumedPartitions;
  private final long intervalMs;
  private final long timeoutMs;
  private final Clock clock;
  private final ChunkAssembler<ControlEvent.BatchChunk, OfferedBatch> assembler =
      ChunkAssembler.batches();
  private final Map<TableId, Map<String, OfferedBatch>> offered = new TreeMap<>();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final CompactionCoordinator compactions;
  private final RoundCommitter roundCommitter;
  private TransactionRounds transactions;
  private volatile boolean running = true;

  /** An incomplete round asks again this often: tasks whose assignment changed report anew. */
  static final long REPEAT_START_MS = 1_000;

  /** The longest wait for control events in one tick. */
  static final long POLL_MS = 100;

  /** Rounds asked for by tasks handing over start at most this often (no back-to-back commits). */
  static final long MIN_REQUESTED_ROUND_GAP_MS = 1_000;

  private final LaterCoordinators later;
  private boolean standingDown;
  private long lastCommitId;
  private long lastStartSentAt;
  private long nextRoundAt;
  private CommitRound round;
  private boolean roundRequested;

  /** Tasks that asked for a round while none was in progress. */
  private final Set<Integer> pendingHandOver = new HashSet<>();

  private long lastRequestedRoundAt = Long.MIN_VALUE / 2;

  public Coordinator(
      String connector,
      Map<String, TableFormat> formats,
      ControlChannel channel,
      Supplier<Set<TopicPartition>> consumedPartitions,
      long intervalMs,
      long timeoutMs,
      int commitParallelism,
      Clock clock,
      FaultInjection faults,
      CommitObserver observer,
      Supplier<? extends Collection<TableId>> knownTables) {
    this.connector = connector;
    this.formats = formats;
    this.channel = channel;
    this.consumedPartitions = consumedPartitions;
    this.intervalMs = intervalMs;
    this.timeoutMs = timeoutMs;
    this.clock = clock;
    this.compactions =
        new CompactionCoordinator(
            connector, formats, knownTables, Math.max(2 * intervalMs, 10_000), clock);
    this.roundCommitter =
        new RoundCommitter(connector, formats, commitParallelism, faults, observer, compactions);
    this.nextRoundAt = clock.millis() + intervalMs;
    this.later = new LaterCoordinators(clock.millis(), standDownMs(intervalMs, timeoutMs));
    this.transactions = new TransactionRounds(connector, false, 0, 0, clock);
  }

  /** Commits whole source transactions only ({@link TransactionRounds}); before {@link #run}. */
  public void commitWholeTransactions(long timeoutMs, int maxPerRound) {
    transactions = new TransactionRounds(connector, true, timeoutMs, maxPerRound, clock);
    roundCommitter.guard(transactions);
  }

  /** Source transactions committed incomplete after transactions.timeout.ms. */
  public long incompleteTransactions() {
    return transactions.committedIncomplete();
  }

  /**
   * Commits {@code table} (the dead-letter table) first in every round, and the other tables only
   * once it took every batch: their watermarks may pass a bad record only when it holds it
   * (docs/dead-letter-table.md). Set before {@link #run}.
   */
  public void commitFirst(TableId table) {
    roundCommitter.commitFirst(table);
  }

  @Override
  public void run() {
    LOG.info(
        "Coordinator of connector {} started (commit every {} ms, timeout {} ms)",
        connector,
        intervalMs,
        timeoutMs);
    try {
      while (running) {
        tick();
      }
    } catch (WakeupException stopping) {
      // close() woke the consumer
    } catch (Throwable t) {
      if (running) {
        LOG.error("Coordinator of connector {} failed", connector, t);
        failure.set(t);
      }
    } finally {
      roundCommitter.shutdownNow();
    }
  }

  void tick() {
    long now = clock.millis();
    if (round == null && now >= nextRoundAt && !standsDown(now)) {
      startRound(now);
    }
    for (ControlEvent event : channel.poll(Duration.ofMillis(pollMs(clock.millis())))) {
      if (event instanceof ControlEvent.StartCommit start) {
        later.heard(start, clock.millis());
      } else if (event instanceof ControlEvent.CompactionResultChunk chunk) {
        // A compaction result, sent as soon as its task finished: committed now, between rounds.
        compactions.onResultChunk(chunk);
      } else if (event instanceof ControlEvent.BatchChunk chunk
          && round != null
          && chunk.commitId() == round.commitId()) {
        // Only batches offered for the round in progress: tasks offer every undecided batch again
        // in each round, so an older offer, or a replayed one, has nothing to add.
        assembler
            .add(chunk)
            .ifPresent(
                batch ->
                    offered
                        .computeIfAbsent(chunk.table(), t -> new LinkedHashMap<>())
                        .put(batch.batchId(), batch));
      } else if (event instanceof ControlEvent.TaskDone done
          && round != null
          && done.commitId() == round.commitId()) {
        round.reported().addAll(done.assigned());
        transactions.held(done.heldEnds());
        round.reporters().add(done.taskId());
        if (round.handingOver().contains(done.taskId())) {
          round.answeredHandOver().add(done.taskId());
        }
      } else if (event instanceof ControlEvent.RoundRequest request) {
        onRoundRequest(request);
      }
    }
    if (standsDown(clock.millis())) {
      return;
    }
    compactions.commitResults(lastCommitId);
    if (round != null) {
      boolean complete = round.reported().containsAll(round.expected());
      if (!complete && round.handOverAnswered()) {
        LOG.info(
            "Commit {}: committing now for tasks {}, which hand over their partitions",
            round.commitId(),
            round.handingOver());
        commitRound(false);
        return;
      }
      if (!complete && clock.millis() - lastStartSentAt >= REPEAT_START_MS) {
        // A rebalance may have moved partitions after their task answered: ask again.
        channel.send(List.of(start(round.commitId())));
        lastStartSentAt = clock.millis();
      }
      if (complete || clock.millis() - round.startedAt() >= timeoutMs) {
        if (!complete) {
          Set<TopicPartition> missing = new HashSet<>(round.expected());
          missing.removeAll(round.reported());
          LOG.warn(
              "Commit {}: no report for {} after {} ms; committing what arrived",
              round.commitId(),
              missing,
              timeoutMs);
        }
        commitRound(complete);
      }
    }
  }

  /**
   * How long this tick waits for control events: {@link #POLL_MS}, but between rounds no longer
   * than until the next is due, so that rounds start on time (a late start delays every later one).
   */
  private long pollMs(long now) {
    if (round != null || standingDown) {
      return POLL_MS;
    }
    return Math.max(1, Math.min(POLL_MS, nextRoundAt - now));
  }

  /**
   * Whether a later coordinator of this connector was heard within {@link
   * LaterCoordinators#standDownMs}: then this one is a zombie (its task 0 was frozen or cut off and
   * started again elsewhere) and commits nothing; its round in progress is dropped, its tasks
   * answer the later one. It starts again once the later one fell silent.
   */
  private boolean standsDown(long now) {
    boolean standDown = later.heardWithin(now);
    if (standDown != standingDown) {
      standingDown = standDown;
      if (standDown) {
        LOG.warn(
            "Coordinator {} of connector {} stands down: a later coordinator ({}) runs, so this one"
                + " (a task 0 that was frozen or cut off, and started again elsewhere) commits "
                + "nothing{}",
            later.number(),
            connector,
            later.latest(),
            round == null ? "" : "; round " + round.commitId() + " is dropped");
        round = null;
        offered.clear();
        assembler.clear();
      } else {
        LOG.warn(
            "Coordinator {} of connector {} commits again: the later coordinator {} was not heard"
                + " for {} ms",
            later.number(),
            connector,
            later.latest(),
            later.standDownMs());
        nextRoundAt = now;
      }
    }
    return standDown;
  }

  /**
   * How long a later coordinator keeps an earlier one standing down (and tasks answering it only)
   * after it was last heard: three commit intervals, at least the commit timeout and one interval.
   */
  public static long standDownMs(long intervalMs, long timeoutMs) {
    return Math.max(3 * intervalMs, timeoutMs + intervalMs);
  }

  /** Whether this coordinator stands down for a later one (for tests). */
  public boolean standingDown() {
    return standingDown;
  }

  /**
   * A task loses partitions (a rebalance, or its stop) and handed in its batches: the round in
   * progress takes them (it is asked again, so the task answers after its request), or a round
   * starts now, at most once per {@link #MIN_REQUESTED_ROUND_GAP_MS}.
   */
  private void onRoundRequest(ControlEvent.RoundRequest request) {
    if (round != null) {
      round.handingOver().add(request.taskId());
      round.answeredHandOver().remove(request.taskId());
      channel.send(List.of(start(round.commitId())));
      lastStartSentAt = clock.millis();
    } else {
      roundRequested = true;
      nextRoundAt =
          Math.min(
              nextRoundAt,
              Math.max(clock.millis(), lastRequestedRoundAt + MIN_REQUESTED_ROUND_GAP_MS));
      pendingHandOver.add(request.taskId());
    }
  }

  private void startRound(long now) {
    long commitId = Math.max(now, lastCommitId + 1);
    lastCommitId = commitId;
    if (roundRequested) {
      lastRequestedRoundAt = now;
      roundRequested = false;
    }
    round =
        new CommitRound(
            commitId,
            now,
            consumedPartitions.get(),
            new HashSet<>(),
            new HashSet<>(pendingHandOver),
            new HashSet<>(),
            new HashSet<>());
    pendingHandOver.clear();
    channel.send(List.of(start(commitId)));
    lastStartSentAt = now;
  }

  /**
   * Commits every table that has batches, up to {@code commitParallelism} at a time, then reports.
   */
  private void commitRound(boolean full) {
    long commitId = round.commitId();
    long committingAt = clock.millis();
    Map<TableId, List<OfferedBatch>> toCommit = new TreeMap<>();
    offered.forEach(
        (table, batches) -> {
          if (!batches.isEmpty()) {
            toCommit.put(table, List.copyOf(batches.values()));
          }
        });
    transactions.reading(round.expected());
    int tables = toCommit.size();
    Map<TableId, List<OfferedBatch>> committing = Map.copyOf(toCommit); // commit() takes some out
    List<ControlEvent> results = roundCommitter.commit(commitId, toCommit, full, round.reporters());
    transactions.committed(committing, results);
    if (tables > 0) {
      long now = clock.millis();
      LOG.info(
          "Commit {} round: {} tables in {} ms after {} ms waiting for the tasks",
          commitId,
          tables,
          now - committingAt,
          committingAt - round.startedAt());
    }
    results.addAll(compactions.afterRound(commitId, round.reporters()));
    offered.clear();
    assembler.clear();
    if (!results.isEmpty()) {
      channel.send(results);
    }
    nextRoundAt = round.startedAt() + intervalMs;
    if (roundRequested) {
      nextRoundAt =
          Math.min(
              nextRoundAt,
              Math.max(clock.millis(), lastRequestedRoundAt + MIN_REQUESTED_ROUND_GAP_MS));
    }
    round = null;
  }

  private ControlEvent start(long commitId) {
    return new ControlEvent.StartCommit(
        connector, commitId, later.number(), transactions.released());
  }

  /** Why the coordinator stopped, if it failed. */
  public Throwable failure() {
    return failure.get();
  }

  /**
   * Stops after the round in hand: table commits already started finish (a stale round of a
   * coordinator that was frozen is fenced by the tables' watermarks, a current one saves its tasks
   * from re-doing the round); the committer threads stop when {@link #run} returns.
   */
  @Override
  public void close() {
    running = false;
    channel.wakeup();
  }
}
