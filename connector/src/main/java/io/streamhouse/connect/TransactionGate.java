package io.streamhouse.connect;

import io.streamhouse.connect.commit.task.TransactionExchange;
import io.streamhouse.connect.commit.task.TransactionTally;
import io.streamhouse.connect.config.TransactionSettings;
import io.streamhouse.connect.decode.TransactionMetadata;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.TransactionCounts;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Transaction-consistent CDC on the task's thread (docs/atomic-commits.md): a change event is
 * written only once the coordinator released its source transaction. At the first event of a
 * transaction not released, its partition stops there: Connect's consumer is sought back to it and
 * paused (no memory held), and resumed when a commit request releases more; a partition's events
 * come in their transactions' order, so every event behind it waits too. END events of the
 * transaction topic are held in memory (at most {@code maxHeld} records per partition, beyond that
 * the partition stops like the others) and reported to the coordinator, which releases them; a
 * released END is written to the transactions table, a BEGIN to none. Each event written is counted
 * for the first table it went to ({@link TransactionTally}), so that the coordinator commits a
 * round only when it holds whole transactions. Only the task's thread calls it.
 */
final class TransactionGate {
  /** What to do with a record. */
  enum Admission {
    /** Write it (and count it with {@link #written}). */
    WRITE,
    /** Consumed, not written (a BEGIN event). */
    SKIP,
    /** Not consumed yet: written later, or read again. */
    HOLD
  }

  /** The consumer calls of Connect's task context the gate needs. */
  interface Consumer {
    void pause(Collection<TopicPartition> partitions);

    void resume(Collection<TopicPartition> partitions);

    /** The next poll returns after at most {@code ms}, so that a release is seen soon. */
    void pollWithin(long ms);
  }

  /** How often a task with stopped partitions looks for a release. */
  static final long LOOK_MS = 250;

  private final TransactionSettings settings;
  private final TransactionExchange exchange;
  private final TransactionTally tally;
  private final RecordIntake.Seeker seeker;
  private final Consumer consumer;
  private final int maxHeld;
  private final Map<TopicPartition, Long> stopped = new HashMap<>();
  private final Map<TopicPartition, ArrayDeque<Held>> heldEnds = new HashMap<>();

  /** The ids of the END events held, in the order they came; reported after each put. */
  private final Set<String> heldIds = new LinkedHashSet<>();

  private boolean heldChanged;
  private Set<String> applied = Set.of();

  /** A record of the transaction topic held, and its event (null: malformed, rejected later). */
  private record Held(SinkRecord record, TransactionMetadata.Event event) {
    boolean passes(Set<String> released) {
      return event == null || event.begin() || released.contains(event.id());
    }
  }

  /** The transaction of the record {@link #admit} passed last: an id, an END, or null. */
  private String lastId;

  private TransactionMetadata.Event lastEnd;

  TransactionGate(
      TransactionSettings settings,
      TransactionExchange exchange,
      TransactionTally tally,
      RecordIntake.Seeker seeker,
      Consumer consumer) {
    this.settings = settings;
    this.exchange = exchange;
    this.tally = tally;
    this.seeker = seeker;
    this.consumer = consumer;
    this.maxHeld = 10 * settings.maxPerRound();
  }

  /**
   * At the start of a {@code put}: when a request released more, the stopped partitions go on and
   * the held transaction events now released are returned, in order, to be written (ENDs) or passed
   * (BEGINs) before the new records.
   */
  List<SinkRecord> released() {
    Set<String> released = exchange.released();
    if (released == applied) {
      return List.of();
    }
    applied = released;
    if (!stopped.isEmpty()) {
      consumer.resume(List.copyOf(stopped.keySet()));
      stopped.clear();
    }
    List<SinkRecord> out = new ArrayList<>();
    for (ArrayDeque<Held> held : heldEnds.values()) {
      while (!held.isEmpty() && held.peekFirst().passes(released)) {
        Held h = held.pollFirst();
        out.add(h.record());
        if (h.event() != null && !h.event().begin()) {
          heldIds.remove(h.event().id());
        }
      }
    }
    heldEnds.values().removeIf(ArrayDeque::isEmpty);
    heldChanged = true;
    return out;
  }

  /**
   * What to do with {@code record} of {@code tp} (its original partition). {@code inEveryTable}:
   * whether every table the record goes to holds it already (a transaction committed before the
   * task started: written again, which the tables skip, not waited for).
   *
   * @throws RecordConversionException if its transaction metadata is malformed
   */
  Admission admit(
      SinkRecord record, TopicPartition tp, BiPredicate<SinkRecord, TopicPartition> inEveryTable)
      throws RecordConversionException {
    lastId = null;
    lastEnd = null;
    if (stopped.containsKey(tp)) {
      return Admission.HOLD;
    }
    if (tp.topic().equals(settings.topic())) {
      return admitTransactionEvent(record, tp, inEveryTable);
    }
    String id = TransactionMetadata.transactionId(record.value());
    if (id == null || applied.contains(id)) {
      lastId = id;
      return Admission.WRITE;
    }
    if (inEveryTable.test(record, tp)) {
      return Admission.WRITE;
    }
    stop(tp, record.originalKafkaOffset());
    return Admission.HOLD;
  }

  private Admission admitTransactionEvent(
      SinkRecord record, TopicPartition tp, BiPredicate<SinkRecord, TopicPartition> inEveryTable)
      throws RecordConversionException {
    ArrayDeque<Held> held = heldEnds.get(tp);
    if (held != null) {
      if (held.size() >= maxHeld) {
        stop(tp, record.originalKafkaOffset());
      } else {
        hold(held, record); // behind an END held: in order
      }
      return Admission.HOLD;
    }
    TransactionMetadata.Event e = event(record);
    if (e.begin()) {
      return Admission.SKIP;
    }
    if (applied.contains(e.id()) || inEveryTable.test(record, tp)) {
      lastEnd = e;
      return Admission.WRITE;
    }
    hold(heldEnds.computeIfAbsent(tp, p -> new ArrayDeque<>()), record);
    return Admission.HOLD;
  }

  private void hold(ArrayDeque<Held> held, SinkRecord record) {
    TransactionMetadata.Event e;
    try {
      e = event(record);
    } catch (RecordConversionException malformed) {
      e = null; // rejected when it is written
    }
    held.addLast(new Held(record, e));
    if (e != null && !e.begin()) {
      heldIds.add(e.id());
      heldChanged = true;
    }
  }

  /** A released END event of the transaction topic, written when a request released it. */
  Admission admitReleased(SinkRecord record) throws RecordConversionException {
    lastId = null;
    lastEnd = null;
    TransactionMetadata.Event e = event(record);
    if (e.begin()) {
      return Admission.SKIP;
    }
    lastEnd = e;
    return Admission.WRITE;
  }

  /** The record {@link #admit} passed last went first to {@code table} (null: to none). */
  void written(SinkRecord record, TopicPartition tp, TableId table) {
    if (table == null) {
      return;
    }
    if (lastEnd != null) {
      tally.ended(table, lastEnd.id(), lastEnd.eventsByTopic());
    } else if (lastId != null) {
      tally.seen(table, lastId, tp.topic());
    }
  }

  /** At the end of a {@code put}: a task waiting for a release polls again soon. */
  void afterPut() {
    if (heldChanged) {
      heldChanged = false;
      exchange.holding(TransactionCounts.fitting(heldIds, settings.maxPerRound()));
    }
    if (!stopped.isEmpty() || !heldEnds.isEmpty()) {
      consumer.pollWithin(LOOK_MS);
    }
  }

  /** Lowers {@code offsets} to the first event not consumed of each partition stopped or held. */
  void holdBack(Map<TopicPartition, Long> offsets) {
    stopped.forEach((tp, at) -> offsets.computeIfPresent(tp, (p, o) -> Math.min(o, at)));
    heldEnds.forEach(
        (tp, held) ->
            offsets.computeIfPresent(
                tp, (p, o) -> Math.min(o, held.peekFirst().record().originalKafkaOffset())));
  }

  /**
   * Partitions leave the task (still assigned) or are read again: nothing stays stopped or held.
   */
  void forget(Collection<TopicPartition> partitions) {
    List<TopicPartition> resume = partitions.stream().filter(stopped::containsKey).toList();
    if (!resume.isEmpty()) {
      consumer.resume(resume);
    }
    for (TopicPartition tp : partitions) {
      stopped.remove(tp);
      ArrayDeque<Held> held = heldEnds.remove(tp);
      if (held != null) {
        held.forEach(h -> heldIds.remove(h.event() == null ? "" : h.event().id()));
        heldChanged = true;
      }
    }
  }

  /** Everything is read again from the rewound positions. */
  void reset() {
    forget(List.copyOf(union()));
  }

  private Set<TopicPartition> union() {
    Set<TopicPartition> all = new HashSet<>(stopped.keySet());
    all.addAll(heldEnds.keySet());
    return all;
  }

  private void stop(TopicPartition tp, long offset) {
    stopped.put(tp, offset);
    seeker.seek(Map.of(tp, offset));
    consumer.pause(List.of(tp));
  }

  private TransactionMetadata.Event event(SinkRecord record) throws RecordConversionException {
    return TransactionMetadata.event(record.value(), settings::topicOf);
  }
}
