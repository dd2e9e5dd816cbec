package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.task.InFlightBatches.Pending;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a task's rounds take out of its writers ({@link TaskState}): the batch cut at a commit
 * request or ahead of it, the last request answered, and the records written since the last cut.
 * Called only by the thread that owns the task state.
 */
final class BatchCuts {
  private final TableWriters writers;
  private final InFlightBatches inFlight;
  private long lastAnsweredCommit;

  /**
   * Records written since the last cut (ahead, at a request or at a hand-over). Only the owner
   * changes it, with a release store (no lock, no atomic read-modify-write per record), so that the
   * control thread's schedule sees it while a long {@code put} (one opening hundreds of writers)
   * still owns the state.
   */
  private final AtomicLong writtenSinceCut = new AtomicLong();

  /**
   * A batch was cut ahead of the next request (in the generation it names, else -1): that request
   * offers it instead of taking the files out of the writers again.
   */
  private long cutAheadGeneration = -1;

  BatchCuts(TableWriters writers, InFlightBatches inFlight) {
    this.writers = writers;
    this.inFlight = inFlight;
  }

  void written() {
    writtenSinceCut.lazySet(writtenSinceCut.getPlain() + 1);
  }

  /** See {@link TaskState#writtenSinceCut}. */
  long writtenSinceCut() {
    return writtenSinceCut.get();
  }

  long lastAnsweredCommit() {
    return lastAnsweredCommit;
  }

  /** See {@link TaskState#round}. */
  Optional<RoundAnswer> round(
      long commitId, boolean takeOut, boolean takeCutAhead, Runnable beforeDetach) {
    if (commitId < lastAnsweredCommit) {
      return Optional.empty();
    }
    boolean repeated = commitId == lastAnsweredCommit;
    lastAnsweredCommit = commitId;
    List<Pending> again = inFlight.offerable();
    if (repeated) {
      return Optional.of(new RoundAnswer(again, DetachedBatches.NONE, true, false));
    }
    if (takeCutAhead && cutAheadGeneration == inFlight.generation()) {
      cutAheadGeneration = -1;
      return Optional.of(new RoundAnswer(again, DetachedBatches.NONE, false, true));
    }
    if (!takeOut) {
      return Optional.of(new RoundAnswer(again, DetachedBatches.NONE, false, false));
    }
    cutAheadGeneration = -1;
    beforeDetach.run();
    return Optional.of(new RoundAnswer(again, detach(), false, false));
  }

  /** See {@link TaskState#cutAhead}. */
  Optional<DetachedBatches> cutAhead(Runnable beforeDetach) {
    if (cutAheadGeneration == inFlight.generation() || !writers.anyWritten()) {
      return Optional.empty();
    }
    beforeDetach.run();
    DetachedBatches detached = detach();
    cutAheadGeneration = detached.generation();
    return Optional.of(detached);
  }

  /** The files and offset ranges of every open table, taken out. */
  DetachedBatches detach() {
    long records = writtenSinceCut.getPlain();
    writtenSinceCut.lazySet(0);
    return new DetachedBatches(
        inFlight.preparing(writers.detachAll()), inFlight.generation(), records);
  }

  /** The writers were aborted: nothing is cut or written. */
  void reset() {
    writtenSinceCut.lazySet(0);
    cutAheadGeneration = -1;
  }
}
