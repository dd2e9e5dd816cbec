package io.streamhouse.connect.protocol;

import java.util.regex.Pattern;

/**
 * Kafka's rule for topic names: 1 to 249 characters of a-z, A-Z, 0-9, '.', '_', '-', not "." or
 * "..".
 */
public final class TopicNames {
  /** The longest topic name Kafka accepts. */
  public static final int MAX_CHARS = 249;

  private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]{1," + MAX_CHARS + "}");

  private TopicNames() {}

  public static boolean isLegal(String topic) {
    return topic != null
        && LEGAL.matcher(topic).matches()
        && !topic.equals(".")
        && !topic.equals("..");
  }
}
