package io.streamhouse.connect.commit;

import java.time.Duration;
import java.util.List;

/** The RPC channel between the tasks and the coordinator (the control topic in production). */
public interface ControlChannel extends AutoCloseable {
  /** Batch payloads are cut into chunks well below the broker's default 1 MB message limit. */
  int CHUNK_BYTES = 512 * 1024;

  /** Sends events and returns once they are accepted by the channel. */
  void send(List<? extends ControlEvent> events);

  /** Events of this connector that arrived within {@code timeout}. */
  List<ControlEvent> poll(Duration timeout);

  /** Makes a blocked {@link #poll} return (with an exception) so that its thread can stop. */
  void wakeup();

  @Override
  void close();
}
