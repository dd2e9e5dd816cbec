package io.streamhouse.e2e;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A Nessie catalog server (0.99.0, Maven Central's executable {@code nessie-quarkus} runner jar) in
 * a child JVM on Java 21+, serving the Iceberg REST API with its warehouse {@value #WAREHOUSE} in
 * an {@link S3CompatibleServer}. Nessie commits several tables' changes in one commit ({@code POST
 * /v1/{prefix}/transactions/commit}), which Iceberg's own REST catalog fixture does not; tests of
 * atomic multi-table commits run against it, and read the catalog as of each Nessie commit with
 * {@link #commitHashes()} and {@link #metadataLocations(String)}.
 *
 * <p>The object store: {@link #start(Path, Path, String, Store)} starts one of its own (bucket
 * {@value #WAREHOUSE}) and stops it on {@link #close()}; {@link #start(Path, Path, String, Store,
 * S3CompatibleServer)} uses the caller's, which must hold that bucket, and leaves it running.
 */
public final class NessieServer implements AutoCloseable {
  static final String NESSIE_VERSION = "0.99.0";
  static final int JAVA_NEEDED = 21;

  /** The warehouse's name, and the bucket it lives in ({@code s3://warehouse/}). */
  public static final String WAREHOUSE = "warehouse";

  private static final String RUNNER =
      "org.projectnessie.nessie:nessie-quarkus:" + NESSIE_VERSION + ":jar:runner";
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
  private static final String S3_OPTIONS = "nessie.catalog.service.s3.default-options.";

  /** Where Nessie keeps its commits. */
  public enum Store {
    /** In the server's heap: lost when it stops. */
    IN_MEMORY,
    /** A RocksDB database in the run folder: kept across {@link #restart()}. */
    ROCKSDB
  }

  private final Path dir;
  private final Path java;
  private final Path jar;
  private final Store store;
  private final S3CompatibleServer s3;
  private final boolean ownsS3;
  private final int port = FreePorts.next();
  private final int managementPort = FreePorts.next();
  private final NessieCommits commits;
  private ManagedProcess process;
  private boolean frozen;

  private NessieServer(
      Path dir, Path java, Path jar, Store store, S3CompatibleServer s3, boolean ownsS3) {
    this.dir = dir;
    this.java = java;
    this.jar = jar;
    this.store = store;
    this.s3 = s3;
    this.ownsS3 = ownsS3;
    this.commits = new NessieCommits(nessieApiUri());
  }

  /**
   * The {@code bin/java} of a Java 21+ runtime, Nessie's minimum; empty if this machine has none.
   * See {@link JavaRuntimes} for where it looks ({@code -Dstreamhouse.java21.home}, {@code
   * $JAVA21_HOME}, then the usual JDK folders).
   */
  public static Optional<Path> java21() {
    return JavaRuntimes.find(JAVA_NEEDED);
  }

  /**
   * Starts an S3-compatible store of its own (bucket {@value #WAREHOUSE}) and Nessie on it, both
   * with their files under {@code dir}; waits until Nessie answers. The Nessie jar (245 MB) is
   * resolved into {@code cacheRoot} once.
   */
  public static NessieServer start(Path dir, Path cacheRoot, String mavenCmd, Store store) {
    // Java and the jar first: no object store to stop when either is missing.
    Path java = requireJava21();
    Path jar = resolveJar(cacheRoot, mavenCmd);
    S3CompatibleServer s3 = S3CompatibleServer.start(dir, WAREHOUSE, cacheRoot, mavenCmd);
    return launch(new NessieServer(dir, java, jar, store, s3, true));
  }

  /**
   * Starts Nessie on the caller's object store, which must hold the bucket {@value #WAREHOUSE};
   * {@link #close()} leaves the store running.
   */
  public static NessieServer start(
      Path dir, Path cacheRoot, String mavenCmd, Store store, S3CompatibleServer s3) {
    Path java = requireJava21();
    Path jar = resolveJar(cacheRoot, mavenCmd);
    return launch(new NessieServer(dir, java, jar, store, s3, false));
  }

  private static Path requireJava21() {
    return java21()
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "Nessie "
                        + NESSIE_VERSION
                        + " needs a Java "
                        + JAVA_NEEDED
                        + "+ runtime and none was found (looked at "
                        + JavaRuntimes.searched()
                        + "). Install one (apt-get install temurin-21-jdk from Adoptium's"
                        + " repository, or openjdk-21-jdk), or point -D"
                        + JavaRuntimes.HOME_PROPERTY
                        + " or $"
                        + JavaRuntimes.HOME_ENV
                        + " at its home."));
  }

  private static Path resolveJar(Path cacheRoot, String mavenCmd) {
    return MavenJar.resolve(cacheRoot, "nessie-quarkus-" + NESSIE_VERSION, mavenCmd, RUNNER);
  }

  /** Starts the server's process; on failure stops what was started (an own store too). */
  private static NessieServer launch(NessieServer server) {
    try {
      server.startProcess();
      return server;
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  /** The Iceberg REST catalog's base URI, for a client's {@code uri} property. */
  public String icebergUri() {
    return "http://127.0.0.1:" + port + "/iceberg";
  }

  /** Nessie's own REST API, version 2. */
  public String nessieApiUri() {
    return "http://127.0.0.1:" + port + "/api/v2";
  }

  /**
   * What an Iceberg {@code RESTCatalog} needs to use this catalog and write its files: the REST
   * URI, the warehouse, and S3FileIO pointed at the object store.
   */
  public Map<String, String> catalogProperties() {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("type", "rest");
    props.put("uri", icebergUri());
    props.put("warehouse", WAREHOUSE);
    props.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
    props.put("s3.endpoint", s3.endpoint());
    props.put("s3.path-style-access", "true");
    props.put("s3.access-key-id", S3CompatibleServer.ACCESS_KEY_ID);
    props.put("s3.secret-access-key", S3CompatibleServer.SECRET_ACCESS_KEY);
    props.put("client.region", S3CompatibleServer.REGION);
    return props;
  }

  public S3CompatibleServer s3() {
    return s3;
  }

  public Store store() {
    return store;
  }

  /** The server process, for its pid and log. */
  public ManagedProcess process() {
    return process;
  }

  /** The hash of the head of branch {@code main}. */
  public String headHash() {
    return commits.head();
  }

  /** The commits of branch {@code main}, oldest first (the empty start of the branch excluded). */
  public List<String> commitHashes() {
    return commits.hashes();
  }

  /**
   * Each Iceberg table's key ({@code ns.table}) to its metadata file as of the Nessie commit {@code
   * hash}: the consistent state of every table at that commit.
   */
  public Map<String, String> metadataLocations(String hash) {
    return commits.metadataLocations(hash);
  }

  /**
   * Stops the server (SIGSTOP): a catalog outage in which connections are accepted by the kernel
   * but nothing is answered, as a hung server does. {@link #thaw()} ends it.
   */
  public synchronized void freeze() {
    process.signal("STOP");
    frozen = true;
  }

  /** Lets a frozen server run again (SIGCONT). */
  public synchronized void thaw() {
    if (frozen) {
      process.signal("CONT");
      frozen = false;
    }
  }

  /** Kills the server at once (SIGKILL), a crash; {@link #restart()} brings it back. */
  public synchronized void kill() {
    process.kill();
    frozen = false;
  }

  /**
   * Stops the server if it runs (SIGTERM) and starts it again on the same ports; waits until it
   * answers. With {@link Store#ROCKSDB} the catalog is as it was; with {@link Store#IN_MEMORY} it
   * is empty.
   */
  public synchronized void restart() {
    stopProcess();
    startProcess();
  }

  private void startProcess() {
    List<String> command = new ArrayList<>();
    command.add(java.toString());
    command.add("-Xmx512m");
    command.add("-XX:+UseSerialGC");
    settings().forEach((k, v) -> command.add("-D" + k + "=" + v));
    command.add("-jar");
    command.add(jar.toString());
    process = ManagedProcess.start("nessie", command, dir, dir.resolve("nessie.log"));
    ManagedProcess started = process;
    Wait.until(
        "Nessie's Iceberg REST API on port " + port,
        READY_TIMEOUT,
        Duration.ofMillis(250),
        started::requireAlive,
        this::answers);
  }

  /** Nessie's configuration, as system properties (Quarkus reads them before its own files). */
  private Map<String, String> settings() {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("quarkus.http.host", "127.0.0.1");
    s.put("quarkus.http.port", Integer.toString(port));
    // Quarkus's management interface defaults to port 9000: two servers would collide.
    s.put("quarkus.management.host", "127.0.0.1");
    s.put("quarkus.management.port", Integer.toString(managementPort));
    s.put("nessie.version.store.type", store.name());
    if (store == Store.ROCKSDB) {
      s.put(
          "nessie.version.store.persist.rocks.database-path",
          dir.resolve("nessie-rocks").toString());
    }
    s.put("nessie.catalog.default-warehouse", WAREHOUSE);
    s.put("nessie.catalog.warehouses." + WAREHOUSE + ".location", "s3://" + WAREHOUSE + "/");
    s.put(S3_OPTIONS + "endpoint", s3.endpoint() + "/");
    s.put(S3_OPTIONS + "path-style-access", "true");
    s.put(S3_OPTIONS + "region", S3CompatibleServer.REGION);
    s.put(S3_OPTIONS + "auth-type", "STATIC");
    // Else Nessie tells clients to have their S3 requests signed by an endpoint of its own, which
    // Iceberg 1.12's S3FileIO does not call: the first write fails with a 404.
    s.put(S3_OPTIONS + "request-signing-enabled", "false");
    s.put(S3_OPTIONS + "access-key", "urn:nessie-secret:quarkus:nessie-secrets.s3");
    s.put("nessie-secrets.s3.name", S3CompatibleServer.ACCESS_KEY_ID);
    s.put("nessie-secrets.s3.secret", S3CompatibleServer.SECRET_ACCESS_KEY);
    return s;
  }

  private boolean answers() {
    return HttpProbe.answersOk(
        HttpRequest.newBuilder(URI.create(icebergUri() + "/v1/config"))
            .timeout(Duration.ofSeconds(2))
            .build());
  }

  private void stopProcess() {
    if (process != null) {
      thaw(); // a stopped process would not act on SIGTERM until the kill that follows
      process.stop(Duration.ofSeconds(20));
    }
  }

  @Override
  public synchronized void close() {
    try {
      stopProcess();
    } finally {
      if (ownsS3) {
        s3.close();
      }
    }
  }
}
