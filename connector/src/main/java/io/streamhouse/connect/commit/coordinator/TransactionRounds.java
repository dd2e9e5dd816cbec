package io.streamhouse.connect.commit.coordinator;

import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transaction-consistent CDC on the coordinator (docs/atomic-commits.md): releases the source
 * transactions whose END events the tasks hold (each commit request names them), and lets a round
 * commit only when its batches hold whole transactions: for every transaction they touch, its END
 * (in the transactions table's batch) and, per topic the connector reads, as many events as the END
 * counts. A round that does not waits, its batches offered again with the next; after {@code
 * timeoutMs} of waiting it commits what arrived, and each transaction left incomplete is logged at
 * ERROR and counted. With the mode off it releases nothing and lets every round commit.
 */
final class TransactionRounds {
  private static final Logger LOG = LoggerFactory.getLogger(Coordinator.class);

  /** Transactions committed incomplete that are remembered, so that their late events commit. */
  static final int MAX_FORCED = 100_000;

  private final String connector;
  private final boolean enabled;
  private final long timeoutMs;
  private final int maxPerRound;
  private final Clock clock;
  private final Function<TableId, Watermarks> watermarks;
  private final Set<String> released = new LinkedHashSet<>();
  private final Set<String> forced = new LinkedHashSet<>();
  private final AtomicLong committedIncomplete = new AtomicLong();
  private long waitingSince = -1;

  /** A transaction a round holds only part of, and what is missing. */
  private record Incomplete(String id, String missing) {
    @Override
    public String toString() {
      return id + ": " + missing;
    }
  }

  /** {@code watermarks}: what each table holds now, to plan a round's batches against. */
  TransactionRounds(
      String connector,
      boolean enabled,
      long timeoutMs,
      int maxPerRound,
      Clock clock,
      Function<TableId, Watermarks> watermarks) {
    this.connector = connector;
    this.watermarks = watermarks;
    this.enabled = enabled;
    this.timeoutMs = timeoutMs;
    this.maxPerRound = maxPerRound;
    this.clock = clock;
  }

  /** A task holds the END events of {@code ids}: the next requests release them, in order. */
  void held(List<String> ids) {
    for (String id : ids) {
      if (released.size() >= maxPerRound) {
        return;
      }
      released.add(id);
    }
  }

  /** What the commit requests release: transactions whose END is held or not committed yet. */
  List<String> released() {
    return enabled ? List.copyOf(released) : List.of();
  }

  /**
   * Empties {@code toCommit} when round {@code commitId} must wait: the batches its tables would
   * apply (planned against their watermarks) do not hold whole transactions, and the wait is
   * shorter than the timeout. Returns, for a round that waits, the decisions no later round changes
   * (batches rejected, or present in their table already: a task read again what a round
   * committed), so that their tasks go on. {@code read}: the partitions the connector reads.
   */
  List<ControlEvent> keepWhole(
      long commitId, Map<TableId, List<OfferedBatch>> toCommit, Set<TopicPartition> read) {
    if (!enabled || toCommit.isEmpty()) {
      return List.of();
    }
    // An END in a batch was released, by this coordinator or by one before it: released on.
    toCommit
        .values()
        .forEach(b -> b.forEach(o -> released.addAll(o.transactions().ends().keySet())));
    Set<String> topics = new HashSet<>();
    read.forEach(tp -> topics.add(tp.topic()));
    Map<TableId, BatchPlan> plans = new HashMap<>();
    List<Incomplete> incomplete;
    try {
      toCommit.forEach((table, batches) -> plans.put(table, plan(table, batches)));
      incomplete = incomplete(toCommit, plans, topics);
    } catch (RuntimeException e) {
      LOG.warn(
          "Commit {} waits: the watermarks of its tables could not be read: {}",
          commitId,
          e.toString());
      toCommit.clear();
      return List.of();
    }
    long now = clock.millis();
    if (incomplete.isEmpty()) {
      waitingSince = -1;
      return List.of();
    }
    if (waitingSince < 0) {
      waitingSince = now;
    }
    if (now - waitingSince < timeoutMs) {
      LOG.info(
          "Commit {} waits for whole source transactions ({} ms so far): {}",
          commitId,
          now - waitingSince,
          summary(incomplete));
      toCommit.clear();
      return finalDecisions(commitId, plans);
    }
    LOG.error(
        "Connector {}, commit {}: after {} ms (transactions.timeout.ms) commits {} source"
            + " transactions incomplete, so that the tables go on: {}",
        connector,
        commitId,
        now - waitingSince,
        incomplete.size(),
        summary(incomplete));
    committedIncomplete.addAndGet(incomplete.size());
    for (Incomplete i : incomplete) {
      forced.add(i.id());
      released.remove(i.id());
    }
    for (Iterator<String> it = forced.iterator(); forced.size() > MAX_FORCED; ) {
      it.next();
      it.remove();
    }
    waitingSince = -1;
    return List.of();
  }

  private BatchPlan plan(TableId table, List<OfferedBatch> batches) {
    List<BatchPlan.Offer> offers = new ArrayList<>();
    batches.forEach(b -> offers.add(new BatchPlan.Offer(b.batchId(), b.ranges())));
    return BatchPlan.of(watermarks.apply(table), offers);
  }

  /** The decisions of a waiting round that no later round changes: rejected, already present. */
  private List<ControlEvent> finalDecisions(long commitId, Map<TableId, BatchPlan> plans) {
    List<ControlEvent> events = new ArrayList<>();
    plans.forEach(
        (table, plan) -> {
          Map<String, BatchPlan.Decision> decided = new HashMap<>(plan.decisions());
          decided.values().removeIf(d -> d == BatchPlan.Decision.APPLY);
          if (!decided.isEmpty()) {
            events.add(new ControlEvent.TableCommitted(connector, commitId, table, decided));
          }
        });
    return events;
  }

  /**
   * The round committed what {@code results} say: the transactions whose END is now in a table are
   * released no more.
   */
  void committed(Map<TableId, List<OfferedBatch>> toCommit, List<ControlEvent> results) {
    if (!enabled) {
      return;
    }
    for (ControlEvent event : results) {
      if (event instanceof ControlEvent.TableCommitted committed) {
        for (OfferedBatch batch : toCommit.getOrDefault(committed.table(), List.of())) {
          BatchPlan.Decision decision = committed.decisions().get(batch.batchId());
          if (decision == BatchPlan.Decision.APPLY
              || decision == BatchPlan.Decision.ALREADY_PRESENT) {
            released.removeAll(batch.transactions().ends().keySet());
          }
        }
      }
    }
  }

  /** Source transactions committed incomplete after the timeout. */
  long committedIncomplete() {
    return committedIncomplete.get();
  }

  /** The transactions that the batches the tables would apply hold part of. */
  private List<Incomplete> incomplete(
      Map<TableId, List<OfferedBatch>> toCommit,
      Map<TableId, BatchPlan> plans,
      Set<String> topics) {
    Map<String, Map<String, Long>> seen = new HashMap<>();
    Map<String, Map<String, Long>> ends = new HashMap<>();
    toCommit.forEach(
        (table, batches) ->
            batches.stream()
                .filter(b -> plans.get(table).decision(b.batchId()) == BatchPlan.Decision.APPLY)
                .map(OfferedBatch::transactions)
                .forEach(
                    t -> {
                      t.seen()
                          .forEach(
                              (id, counts) ->
                                  counts.forEach(
                                      (topic, n) ->
                                          seen.computeIfAbsent(id, i -> new HashMap<>())
                                              .merge(topic, n, Long::sum)));
                      ends.putAll(t.ends());
                    }));
    Set<String> ids = new TreeSet<>(seen.keySet());
    ids.addAll(ends.keySet());
    List<Incomplete> incomplete = new ArrayList<>();
    for (String id : ids) {
      if (forced.contains(id)) {
        continue;
      }
      Map<String, Long> expected = ends.get(id);
      Map<String, Long> got = seen.getOrDefault(id, Map.of());
      if (expected == null) {
        incomplete.add(new Incomplete(id, "its END is not in the round, " + got + " events are"));
        continue;
      }
      List<String> missing = new ArrayList<>();
      expected.forEach(
          (topic, n) -> {
            long have = got.getOrDefault(topic, 0L);
            if (topics.contains(topic) && have != n) {
              missing.add(have + " of " + n + " events of " + topic);
            }
          });
      got.keySet().stream()
          .filter(topic -> !expected.containsKey(topic))
          .forEach(topic -> missing.add(got.get(topic) + " events of " + topic + ", not in END"));
      if (!missing.isEmpty()) {
        incomplete.add(new Incomplete(id, String.join(", ", missing)));
      }
    }
    return incomplete;
  }

  private static String summary(List<Incomplete> incomplete) {
    return incomplete.size() <= 5
        ? incomplete.toString()
        : incomplete.subList(0, 5) + " and " + (incomplete.size() - 5) + " more";
  }
}
