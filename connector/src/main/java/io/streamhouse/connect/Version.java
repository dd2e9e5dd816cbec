package io.streamhouse.connect;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** The plugin version, taken from the build (a filtered resource). */
public final class Version {
  private static final String VERSION = load();

  private Version() {}

  /** The Maven project version the plugin was built as, for example {@code 0.1.0-SNAPSHOT}. */
  public static String get() {
    return VERSION;
  }

  private static String load() {
    try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        throw new IllegalStateException("version.properties is missing from the plugin jar");
      }
      Properties props = new Properties();
      props.load(in);
      return props.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the plugin version", e);
    }
  }
}
