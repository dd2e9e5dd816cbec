package io.streamhouse.e2e;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A real Iceberg REST catalog server in a child JVM: the RESTCatalogServer of Iceberg's open-api
 * test fixtures (1.11.0, the newest published), backed by a JDBC catalog in a SQLite file and a
 * warehouse on local disk or in an S3-compatible store. It is configured through CATALOG_*
 * environment variables.
 */
public final class IcebergRestCatalogServer implements AutoCloseable {
  static final String ICEBERG_VERSION = "1.11.0";
  static final String JETTY_VERSION = "12.1.14";
  private static final List<String> ARTIFACTS =
      List.of(
          "org.apache.iceberg:iceberg-open-api:" + ICEBERG_VERSION + ":test-fixtures",
          "org.apache.iceberg:iceberg-core:" + ICEBERG_VERSION,
          "org.apache.iceberg:iceberg-core:" + ICEBERG_VERSION + ":tests",
          "org.apache.iceberg:iceberg-aws:" + ICEBERG_VERSION,
          "org.apache.iceberg:iceberg-aws-bundle:" + ICEBERG_VERSION,
          "org.eclipse.jetty.ee10:jetty-ee10-servlet:" + JETTY_VERSION,
          "org.eclipse.jetty.compression:jetty-compression-server:" + JETTY_VERSION,
          "org.eclipse.jetty.compression:jetty-compression-gzip:" + JETTY_VERSION,
          "org.xerial:sqlite-jdbc:3.51.1.0",
          "org.apache.hadoop:hadoop-client-api:3.4.1",
          "org.apache.hadoop:hadoop-client-runtime:3.4.1",
          "org.slf4j:slf4j-simple:2.0.17");

  private final int port;
  private final ManagedProcess process;

  private IcebergRestCatalogServer(int port, ManagedProcess process) {
    this.port = port;
    this.process = process;
  }

  /** Starts a server whose catalog and warehouse live in {@code dir}; waits until it answers. */
  public static IcebergRestCatalogServer start(Path dir, Path cacheRoot, String mavenCmd) {
    return start(
        dir,
        cacheRoot,
        mavenCmd,
        Map.of("CATALOG_WAREHOUSE", dir.resolve("rest-warehouse").toUri().toString()));
  }

  /**
   * Starts a server whose catalog lives in {@code dir} and whose warehouse is {@code
   * s3://bucket/warehouse} in {@code s3}, written through Iceberg's S3FileIO; waits until it
   * answers.
   */
  public static IcebergRestCatalogServer startOnS3(
      Path dir, Path cacheRoot, String mavenCmd, S3CompatibleServer s3, String bucket) {
    return start(
        dir,
        cacheRoot,
        mavenCmd,
        Map.of(
            "CATALOG_WAREHOUSE",
            "s3://" + bucket + "/warehouse",
            "CATALOG_IO__IMPL",
            "org.apache.iceberg.aws.s3.S3FileIO",
            "CATALOG_S3_ENDPOINT",
            s3.endpoint(),
            "CATALOG_S3_PATH__STYLE__ACCESS",
            "true",
            "CATALOG_S3_ACCESS__KEY__ID",
            S3CompatibleServer.ACCESS_KEY_ID,
            "CATALOG_S3_SECRET__ACCESS__KEY",
            S3CompatibleServer.SECRET_ACCESS_KEY,
            "CATALOG_CLIENT_REGION",
            S3CompatibleServer.REGION,
            "AWS_REGION",
            S3CompatibleServer.REGION));
  }

  private static IcebergRestCatalogServer start(
      Path dir, Path cacheRoot, String mavenCmd, Map<String, String> warehouse) {
    Path lib =
        MavenClasspath.resolve(
            cacheRoot, "iceberg-rest-catalog-" + ICEBERG_VERSION + "-aws", mavenCmd, ARTIFACTS);
    int port = FreePorts.next();
    Map<String, String> env = new HashMap<>(warehouse);
    env.put("CATALOG_REST_PORT", Integer.toString(port));
    env.put("CATALOG_URI", "jdbc:sqlite:" + dir.resolve("rest-catalog.db"));
    ManagedProcess process =
        ManagedProcess.start(
            "iceberg-rest-catalog",
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-cp",
                lib + "/*",
                "org.apache.iceberg.rest.RESTCatalogServer"),
            dir,
            dir.resolve("rest-catalog.log"),
            env);
    IcebergRestCatalogServer server = new IcebergRestCatalogServer(port, process);
    Wait.until(
        "the Iceberg REST catalog on port " + port,
        Duration.ofSeconds(60),
        Duration.ofMillis(100),
        process::requireAlive,
        server::answers);
    return server;
  }

  public String uri() {
    return "http://127.0.0.1:" + port;
  }

  private boolean answers() {
    return HttpProbe.answersOk(
        HttpRequest.newBuilder(URI.create(uri() + "/v1/config"))
            .timeout(Duration.ofSeconds(2))
            .build());
  }

  @Override
  public void close() {
    process.stop(Duration.ofSeconds(15));
  }
}
