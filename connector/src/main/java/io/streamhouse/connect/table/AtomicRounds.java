package io.streamhouse.connect.table;

import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.TableId;
import java.util.List;

/**
 * A catalog that makes the commits of several of its tables visible at once ({@code
 * catalog.<name>.commit.atomic}): the coordinator stages each table of a round as {@link
 * TableFormat#commit} would plan it, then publishes them together, so that a reader of the catalog
 * sees every table before the round or every table after it, never a mix.
 */
public interface AtomicRounds {
  /** A new attempt at committing the tables of round {@code commitId} together. */
  Round begin(long commitId);

  /** One attempt: stage tables (from several threads, one table each), then publish or abandon. */
  interface Round {
    /**
     * Plans {@code batches} against {@code table} as it is now and prepares its snapshot without
     * making it visible; the outcome holds until {@link #publish} fails.
     */
    CommitOutcome stage(TableId table, List<OfferedBatch> batches, boolean fullRound);

    /** Whether any staged table has a snapshot to publish. */
    boolean changesAnyTable();

    /**
     * Makes every staged snapshot visible in one catalog transaction, or none.
     *
     * @throws CommitLoop.ConcurrentCommitException when a table changed since it was staged: no
     *     table changed, and the round may be staged again
     */
    void publish() throws CommitLoop.ConcurrentCommitException;

    /**
     * Deletes what staging wrote for a round that will not be published; keeps it when a publish
     * ended without the catalog's answer (the tables may hold it).
     */
    void abandon();
  }
}
