package io.streamhouse.connect.testing;

import io.streamhouse.connect.commit.FaultInjection;
import io.streamhouse.connect.commit.task.Participant;
import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.schema.EvolutionMode;
import io.streamhouse.connect.table.DetachedFiles;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableFormat;
import io.streamhouse.connect.table.TableNotFoundException;
import io.streamhouse.connect.table.TableWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * A table format whose writers count records and whose files close only when {@link #closing}
 * opens; it keeps watermarks per table and commits (when it tolerates concurrent committers) by the
 * batch plan.
 */
/** Writers whose detached files close only once the test opens the gate. */
public final class SlowClosingFormat implements TableFormat {
  /** The gate files wait for when they close; a test may put a new, closed one. */
  public volatile CountDownLatch closing = new CountDownLatch(1);

  public volatile boolean failClosing;

  /** Whether writers count on their files being committed, as a keyed Iceberg table's do. */
  public volatile boolean writersCountOnFiles;

  /**
   * Task 0 of connector {@code conn}, whose catalog {@code c} is this format, answering on {@code
   * channel}: commit interval 0 (no cut ahead), commit timeout 30 s, two close threads.
   */
  public Participant participantOn(ControlChannel channel) {
    return new Participant(
        "conn",
        0,
        Map.of("c", this),
        channel,
        new FileBudget(10, 64L << 20),
        FaultInjection.parse(""),
        0,
        30_000,
        2);
  }

  @Override
  public boolean writerCountsOn(PreparedFiles files) {
    return writersCountOnFiles;
  }

  /** How long closing takes once the gate is open: a slow flush, as a format's would be. */
  public volatile long closeMillis;

  public final List<DetachedFiles> detached = Collections.synchronizedList(new ArrayList<>());
  public final List<PreparedFiles> discarded = Collections.synchronizedList(new ArrayList<>());
  public final Map<TableId, Watermarks> watermarks = new java.util.HashMap<>();

  /** Writers opened so far. */
  public final java.util.concurrent.atomic.AtomicInteger writersOpened =
      new java.util.concurrent.atomic.AtomicInteger();

  /**
   * Opening a writer of this table waits for {@link #opening}, as a keyed Iceberg table's writer
   * reads the table's key index; {@link #openingStarted} tells that it waits.
   */
  public volatile TableId slowToOpen;

  public final CountDownLatch opening = new CountDownLatch(1);
  public final CountDownLatch openingStarted = new CountDownLatch(1);

  /** Opening a writer of this table finds it missing. */
  public volatile TableId missing;

  @Override
  public Optional<TableWriter> openWriter(
      TableId table, RouteSettings route, SinkRecord sample, FileBudget budget) {
    writersOpened.incrementAndGet();
    if (table.equals(missing)) {
      throw new TableNotFoundException("Table " + table + " does not exist");
    }
    if (table.equals(slowToOpen)) {
      openingStarted.countDown();
      try {
        opening.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return Optional.of(
        new TableWriter() {
          private long records;

          @Override
          public void write(SinkRecord record) {
            records++;
          }

          @Override
          public io.streamhouse.connect.schema.TableColumns columns() {
            throw new UnsupportedOperationException();
          }

          @Override
          public PreparedFiles prepare() {
            return detach().close();
          }

          @Override
          public DetachedFiles detach() {
            long count = records;
            records = 0;
            CountDownLatch gate = closing;
            DetachedFiles files =
                () -> {
                  try {
                    gate.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  if (closeMillis > 0) {
                    try {
                      Thread.sleep(closeMillis); // the work of a flush, not a synchronization
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  }
                  if (failClosing) {
                    throw new java.io.UncheckedIOException(new java.io.IOException("disk full"));
                  }
                  return new PreparedFiles(1, new byte[] {1}, 1, count, count * 10);
                };
            detached.add(files);
            return files;
          }

          @Override
          public void abort() {
            records = 0;
          }

          @Override
          public void close() {}
        });
  }

  @Override
  public void evolve(
      TableId table, io.streamhouse.connect.schema.FieldType.Struct row, EvolutionMode mode) {
    throw new UnsupportedOperationException();
  }

  public boolean toleratesConcurrentCommitters;
  public final List<String> committed = new ArrayList<>();

  /** Whether a next owner may read on after a handed-in batch; how often one prepared for it. */
  public volatile boolean readOnAfter;

  public final java.util.concurrent.atomic.AtomicInteger preparedToWriteAfter =
      new java.util.concurrent.atomic.AtomicInteger();

  @Override
  public Optional<io.streamhouse.connect.table.WriteAfter> writeAfter(
      TableId table, PreparedFiles files) {
    return readOnAfter ? Optional.of(preparedToWriteAfter::incrementAndGet) : Optional.empty();
  }

  @Override
  public Watermarks watermarks(TableId table) {
    return watermarks.getOrDefault(table, Watermarks.EMPTY);
  }

  @Override
  public boolean toleratesConcurrentCommitters() {
    return toleratesConcurrentCommitters;
  }

  @Override
  public CommitOutcome commit(
      TableId table, long commitId, List<OfferedBatch> batches, boolean fullRound) {
    if (!toleratesConcurrentCommitters) {
      throw new UnsupportedOperationException();
    }
    BatchPlan plan =
        BatchPlan.of(
            watermarks(table),
            batches.stream().map(b -> new BatchPlan.Offer(b.batchId(), b.ranges())).toList());
    watermarks.put(table, plan.after());
    committed.addAll(plan.applied());
    return new CommitOutcome(
        plan.decisions(), plan.after(), java.util.OptionalLong.of(1), 0, 0, java.util.Set.of());
  }

  @Override
  public void discard(TableId table, List<PreparedFiles> files) {
    discarded.addAll(files);
  }

  @Override
  public void close() {}
}
