package io.streamhouse.connect.commit;

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
}
