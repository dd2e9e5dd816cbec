package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.BankTransfers;
import io.streamhouse.e2e.DebeziumTransactions;
import io.streamhouse.e2e.IcebergTables;
import io.streamhouse.e2e.JsonRecordProducer;
import io.streamhouse.e2e.LocalStack;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;

/**
 * The steady phase of {@link TransactionsBenchmark}: transfers produced at a fixed rate, each END
 * stamped with the time it is produced, while a reader polls the transactions table for END rows
 * newer than the phase's start (Iceberg prunes the older files by their column bounds). A
 * transaction's freshness is the time from its stamp to the poll that first sees its row.
 */
final class SteadyTransfers {
  private static final long POLL_MS = 250;

  private SteadyTransfers() {}

  /**
   * Produces {@code rate} transfers a second for {@code seconds}; returns "p50/p95/max" seconds.
   */
  static String freshness(
      LocalStack stack,
      DebeziumTransactions debezium,
      BankTransfers bank,
      IcebergTables tables,
      String table,
      int rate,
      int seconds,
      Duration timeout)
      throws Exception {
    long start = System.currentTimeMillis();
    Set<String> produced = ConcurrentHashMap.newKeySet();
    int total = rate * seconds;
    CompletableFuture<Void> producing =
        CompletableFuture.runAsync(
            () -> {
              try (JsonRecordProducer producer = stack.producer()) {
                for (int k = 0; k < total; k++) {
                  pace(start + 1000L * k / rate);
                  BankTransfers.Transaction tx = bank.transfer();
                  TransactionsBenchmark.send(producer, debezium, tx);
                  producer.flush();
                  produced.add(tx.id());
                }
              }
            });
    List<Long> ages = new ArrayList<>();
    Set<String> seen = ConcurrentHashMap.newKeySet();
    long deadline = start + seconds * 1000L + timeout.toMillis();
    while (seen.size() < total && System.currentTimeMillis() < deadline) {
      pace(System.currentTimeMillis() + POLL_MS);
      if (!tables.exists(table)) {
        continue;
      }
      long now = System.currentTimeMillis();
      try (CloseableIterable<Record> rows =
          IcebergGenerics.read(tables.table(table))
              .where(
                  Expressions.and(
                      Expressions.greaterThanOrEqual("ts_ms", start),
                      Expressions.equal("status", "END")))
              .build()) {
        for (Record row : rows) {
          String id = (String) row.getField("id");
          if (produced.contains(id) && seen.add(id)) {
            ages.add(now - (Long) row.getField("ts_ms"));
          }
        }
      }
    }
    producing.join();
    if (ages.isEmpty()) {
      return "none seen";
    }
    Collections.sort(ages);
    String figures =
        String.format(
            "%.1f/%.1f/%.1f",
            ages.get(ages.size() / 2) / 1000.0,
            ages.get((int) Math.min(ages.size() - 1, Math.round(ages.size() * 0.95))) / 1000.0,
            ages.get(ages.size() - 1) / 1000.0);
    return seen.size() < total ? figures + " (" + seen.size() + " of " + total + " seen)" : figures;
  }

  /** Waits until {@code untilMs}: the pacing of a load generator, not synchronization. */
  private static void pace(long untilMs) {
    long ms = untilMs - System.currentTimeMillis();
    if (ms > 0) {
      try {
        Thread.sleep(ms);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }
}
