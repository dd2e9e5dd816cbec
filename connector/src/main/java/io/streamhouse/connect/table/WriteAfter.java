package io.streamhouse.connect.table;

/**
 * What a task does before it writes to a table after another task's batch of that table whose
 * commit is not decided yet (docs/architecture.md, "Reading on after a hand-in"): for a format
 * whose rows carry sequence numbers, it makes the task's writers number every bucket the batch
 * wrote above the batch's rows. Returned by {@link TableFormat#writeAfter}; applied on the task's
 * thread before it opens a writer of the table.
 */
@FunctionalInterface
public interface WriteAfter {
  void prepareWriters();

  /** Nothing to do: rows of the format carry no order of their own (an append table). */
  WriteAfter NOTHING = () -> {};
}
