package io.streamhouse.connect.commit.task;

import io.streamhouse.connect.commit.task.InFlightBatches.Pending;
import java.util.List;

/**
 * The batches a task answers a round with ({@link TaskState#round}): those offered again, and the
 * new ones taken out; none are taken out when the round repeats the last request, or when a batch
 * was cut ahead for it ({@code cutAhead}: the round offers that one once its files closed).
 */
record RoundAnswer(
    List<Pending> offeredAgain, DetachedBatches detached, boolean repeated, boolean cutAhead) {}
