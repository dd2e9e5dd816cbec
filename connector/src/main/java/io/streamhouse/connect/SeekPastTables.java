package io.streamhouse.connect;

import io.streamhouse.connect.commit.task.Participant;
import io.streamhouse.connect.routing.TableRouter;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.connect.sink.SinkRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first records of a partition since its assignment or a rewind start at Connect's committed
 * offset, which lags the tables' watermarks by up to the worker's offset flush interval (after a
 * crash, for example). When every table the partition feeds holds more than the first batch brings,
 * the task seeks to the last record they hold instead of reading the rest again only to skip it;
 * reading that one record again moves Connect's position, so that Connect commits it. The tables
 * skip the records below what they hold. Not with transforms ({@code tablesKnownByTopic} false):
 * one could send records of the partition to other tables than its topic's. Only the task's thread
 * calls it.
 */
final class SeekPastTables {
  private static final Logger LOG = LoggerFactory.getLogger(RecordIntake.class);

  private final Participant participant;
  private final TableRouter router;
  private final RecordIntake.Seeker seeker;

  /** Whether the records of a partition go to tables known from its topic (no transforms). */
  private final boolean tablesKnownByTopic;

  /**
   * Partitions whose first records since their assignment or the last rewind have not arrived yet.
   */
  private final Set<TopicPartition> unseen = new HashSet<>();

  SeekPastTables(
      Participant participant,
      TableRouter router,
      RecordIntake.Seeker seeker,
      boolean tablesKnownByTopic) {
    this.participant = participant;
    this.router = router;
    this.seeker = seeker;
    this.tablesKnownByTopic = tablesKnownByTopic;
  }

  /** The next records of {@code partitions} are their first since an assignment or a rewind. */
  void watch(Collection<TopicPartition> partitions) {
    if (tablesKnownByTopic) {
      unseen.addAll(partitions);
    }
  }

  void forget(Collection<TopicPartition> partitions) {
    unseen.removeAll(partitions);
  }

  /** Whether the next records of {@code tp} are its first: see {@link #seek}. */
  boolean watches(TopicPartition tp) {
    return !unseen.isEmpty() && unseen.contains(tp);
  }

  /**
   * The first records of watched partitions arrived ({@code firstSeen}, up to {@code lastSeen}):
   * seeks each past what all its tables hold, if that is beyond them.
   */
  void seek(Map<TopicPartition, SinkRecord> firstSeen, Map<TopicPartition, Long> lastSeen) {
    firstSeen.forEach(
        (tp, first) -> {
          unseen.remove(tp);
          Optional<List<TableRouter.Destination>> destinations =
              router.staticDestinations(first.topic());
          if (destinations.isEmpty()) {
            return; // a route names tables from record fields: the partition's tables are unknown
          }
          OptionalLong held = participant.commonPosition(tp, destinations.get());
          if (held.isPresent() && held.getAsLong() - 1 > lastSeen.get(tp) + 1) {
            LOG.info(
                "{} hold {} below offset {} already; skipping from offset {} to offset {}",
                destinations.get().stream().map(d -> d.table().toString()).distinct().toList(),
                tp,
                held.getAsLong(),
                first.originalKafkaOffset(),
                held.getAsLong() - 1);
            seeker.seek(Map.of(tp, held.getAsLong() - 1));
          }
        });
  }
}
