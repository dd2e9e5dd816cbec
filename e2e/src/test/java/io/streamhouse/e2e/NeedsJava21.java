package io.streamhouse.e2e;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips a test class that starts a Nessie server when the machine has no Java 21+ runtime for it;
 * registered before {@link LocalStackExtension}, it skips before a broker or worker starts.
 */
final class NeedsJava21 implements BeforeAllCallback {
  @Override
  public void beforeAll(ExtensionContext context) {
    Assumptions.assumeTrue(
        NessieServer.java21().isPresent(),
        "Nessie 0.99 needs a Java 21+ runtime and this machine has none: install one (apt-get"
            + " install temurin-21-jdk or openjdk-21-jdk) or set JAVA21_HOME");
  }
}
