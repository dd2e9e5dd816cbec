package io.streamhouse.e2e.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The peak heap of a benchmark JVM started with {@code -Xlog:gc:file=gc-%p.log}, read from its GC
 * log.
 */
final class GcLogs {
  /** The JVM flag that writes the log {@link #peakHeapMb} reads, into the JVM's working folder. */
  static final String FLAG = "-Xlog:gc:file=gc-%p.log";

  private static final Pattern GC_HEAP = Pattern.compile("(\\d+)M->\\d+M\\(\\d+M\\)");

  private GcLogs() {}

  /**
   * The largest heap occupancy before a collection in the GC log of process {@code pid} in {@code
   * dir} (its working folder), in MB; "n/a" without a log.
   */
  static String peakHeapMb(Path dir, long pid) throws Exception {
    Path log = dir.resolve("gc-" + pid + ".log");
    if (!Files.exists(log)) {
      return "n/a";
    }
    long peak = 0;
    Matcher m = GC_HEAP.matcher(Files.readString(log));
    while (m.find()) {
      peak = Math.max(peak, Long.parseLong(m.group(1)));
    }
    return Long.toString(peak);
  }
}
