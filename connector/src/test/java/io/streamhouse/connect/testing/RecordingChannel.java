package io.streamhouse.connect.testing;

import io.streamhouse.connect.commit.wire.ControlChannel;
import io.streamhouse.connect.commit.wire.ControlEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Records what the participant sends. */
public final class RecordingChannel implements ControlChannel {
  public final List<ControlEvent> sent = Collections.synchronizedList(new ArrayList<>());

  public List<ControlEvent.BatchChunk> batches() {
    synchronized (sent) {
      return sent.stream()
          .filter(e -> e instanceof ControlEvent.BatchChunk)
          .map(e -> (ControlEvent.BatchChunk) e)
          .toList();
    }
  }

  public long done() {
    synchronized (sent) {
      return sent.stream().filter(e -> e instanceof ControlEvent.TaskDone).count();
    }
  }

  @Override
  public void send(List<? extends ControlEvent> events) {
    sent.addAll(events);
  }

  @Override
  public List<ControlEvent> poll(Duration timeout) {
    return List.of();
  }

  @Override
  public void wakeup() {}

  @Override
  public void close() {}
}
