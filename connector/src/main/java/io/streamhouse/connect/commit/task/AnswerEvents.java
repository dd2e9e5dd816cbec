package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.wire.ChunkAssembler;
import io.streamhouse.connect.commit.wire.ControlEvent;
import io.streamhouse.connect.protocol.TableId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;

/**
 * The {@code BatchChunk} events of a task's answer, in the order the coordinator must see them: the
 * batches of the table to commit first (the dead-letter table) before all others, so that a round
 * holding another table's batch from this answer holds the dead-letter table's too.
 */
final class AnswerEvents {
  private final String connector;
  private final int taskId;
  private volatile TableId commitFirst;

  AnswerEvents(String connector, int taskId) {
    this.connector = connector;
    this.taskId = taskId;
  }

  /** The table whose batches go first in every answer. */
  void commitFirst(TableId table) {
    this.commitFirst = table;
  }

  /** The chunks of {@code batches} for round {@code commitId}, the first table's first. */
  List<ControlEvent> of(long commitId, Collection<InFlightBatches.Pending> batches) {
    List<InFlightBatches.Pending> ordered = new ArrayList<>(batches);
    TableId first = commitFirst;
    if (first != null) {
      ordered.sort(Comparator.comparing(p -> !p.table().equals(first))); // stable sort
    }
    List<ControlEvent> events = new ArrayList<>();
    for (InFlightBatches.Pending p : ordered) {
      events.addAll(ChunkAssembler.split(connector, commitId, taskId, p.table(), p.batch()));
    }
    return events;
  }
}
