package io.streamhouse.connect.commit;

import java.util.Map;
import java.util.concurrent.ThreadFactory;
import org.apache.iceberg.relocated.com.google.common.util.concurrent.ThreadFactoryBuilder;
import org.slf4j.MDC;

/**
 * The threads a task starts besides Connect's: daemons, named, and carrying the logging context of
 * the thread that made their factory (Connect's {@code connector.context}, so that each of their
 * log lines names the connector and the task as Connect's own lines do).
 */
public final class ConnectorThreads {
  private ConnectorThreads() {}

  /** Threads named by {@code nameFormat} ({@code %d} counts them), at normal priority. */
  public static ThreadFactory factory(String nameFormat) {
    return factory(nameFormat, Thread.NORM_PRIORITY);
  }

  /** Threads named by {@code nameFormat} ({@code %d} counts them) at {@code priority}. */
  public static ThreadFactory factory(String nameFormat, int priority) {
    Map<String, String> context = MDC.getCopyOfContextMap();
    return new ThreadFactoryBuilder()
        .setNameFormat(nameFormat)
        .setDaemon(true)
        .setPriority(priority)
        .setThreadFactory(
            body ->
                new Thread(
                    () -> {
                      if (context != null) {
                        MDC.setContextMap(context);
                      }
                      body.run();
                    }))
        .build();
  }

  /** Starts {@code body} on a thread of its own named {@code name}. */
  public static Thread start(Runnable body, String name) {
    Thread thread = factory(name.replace("%", "%%")).newThread(body);
    thread.start();
    return thread;
  }
}
