package io.streamhouse.connect.commit.wire;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The RPC channel between the tasks and the coordinator (the control topic in production). */
public interface ControlChannel extends AutoCloseable {
  /** Batch payloads are cut into chunks well below the broker's default 1 MB message limit. */
  int CHUNK_BYTES = 512 * 1024;

  /** Sends events and returns once they are accepted by the channel. */
  void send(List<? extends ControlEvent> events);

  /** Events of this connector that arrived within {@code timeout}. */
  List<ControlEvent> poll(Duration timeout);

  /**
   * Whether the channel keeps one order of events and can say where it ends ({@link #endOffsets}):
   * a task given partitions then reads up to there before it looks for batches handed in for them.
   */
  default boolean keepsOrder() {
    return false;
  }

  /**
   * Where the channel ends now, per partition: a reader that reached it has seen every event sent
   * before this call. Only on the thread that polls. Empty where the channel keeps no order.
   */
  default Map<Integer, Long> endOffsets() {
    return Map.of();
  }

  /** Whether this reader has read up to {@code ends} ({@link #endOffsets}). Only on the poller. */
  default boolean readUpTo(Map<Integer, Long> ends) {
    return true;
  }

  /** Makes a blocked {@link #poll} return (with an exception) so that its thread can stop. */
  void wakeup();

  @Override
  void close();
}
