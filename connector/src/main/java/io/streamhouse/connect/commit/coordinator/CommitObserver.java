package io.streamhouse.connect.commit.coordinator;

import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.TableId;

/** Hears what the coordinator did to each table (for metrics). Called from committer threads. */
public interface CommitObserver {
  CommitObserver NONE =
      new CommitObserver() {
        @Override
        public void committed(
            TableId table,
            CommitOutcome outcome,
            long bytes,
            long durationMs,
            int rejectedBatches) {}

        @Override
        public void failed(TableId table) {}
      };

  /** A commit of {@code table} finished: applied, acknowledged or rejected batches. */
  void committed(
      TableId table, CommitOutcome outcome, long bytes, long durationMs, int rejectedBatches);

  /** A commit of {@code table} failed; its batches stay offered. */
  void failed(TableId table);

  /** Tells {@code first}, then {@code second}. */
  static CommitObserver both(CommitObserver first, CommitObserver second) {
    return new CommitObserver() {
      @Override
      public void committed(
          TableId table, CommitOutcome outcome, long bytes, long durationMs, int rejectedBatches) {
        first.committed(table, outcome, bytes, durationMs, rejectedBatches);
        second.committed(table, outcome, bytes, durationMs, rejectedBatches);
      }

      @Override
      public void failed(TableId table) {
        first.failed(table);
        second.failed(table);
      }
    };
  }
}
