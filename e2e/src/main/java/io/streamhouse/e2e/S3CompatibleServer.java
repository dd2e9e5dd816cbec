package io.streamhouse.e2e;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * An S3-compatible object store in a child JVM: Adobe's S3Mock (a Spring Boot server of the S3 REST
 * API, path-style, any credentials), its objects in a folder of the run. It stands in for MinIO,
 * which the Docker stack runs, because no Docker engine runs here.
 */
public final class S3CompatibleServer implements AutoCloseable {
  static final String S3MOCK_VERSION = "4.11.0";
  public static final String ACCESS_KEY_ID = "streamhouse";
  public static final String SECRET_ACCESS_KEY = "streamhouse-secret";
  public static final String REGION = "us-east-1";

  private final int port;
  private final ManagedProcess process;

  private S3CompatibleServer(int port, ManagedProcess process) {
    this.port = port;
    this.process = process;
  }

  /**
   * Starts a server holding {@code bucket} (empty), its objects under {@code dir}; waits until it
   * answers.
   */
  public static S3CompatibleServer start(Path dir, String bucket, Path cacheRoot, String mavenCmd) {
    // Without Spring Boot's BOM, Maven would pick an slf4j 1.7 that Spring Boot's Logback rejects.
    Path lib =
        MavenClasspath.resolve(
            cacheRoot,
            "s3mock-" + S3MOCK_VERSION,
            mavenCmd,
            List.of("com.adobe.testing:s3mock:" + S3MOCK_VERSION, "org.slf4j:slf4j-api:2.0.17"));
    int httpPort = FreePorts.next();
    int httpsPort = FreePorts.next();
    ManagedProcess process =
        ManagedProcess.start(
            "s3mock",
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m",
                "-XX:+UseSerialGC",
                "-cp",
                lib + "/*",
                "com.adobe.testing.s3mock.S3MockApplication",
                "--com.adobe.testing.s3mock.httpPort=" + httpPort,
                "--server.port=" + httpsPort,
                "--com.adobe.testing.s3mock.store.initialBuckets=" + bucket,
                "--com.adobe.testing.s3mock.store.root=" + dir.resolve("s3-objects"),
                "--com.adobe.testing.s3mock.store.retainFilesOnExit=true"),
            dir,
            dir.resolve("s3mock.log"));
    S3CompatibleServer server = new S3CompatibleServer(httpPort, process);
    Wait.until(
        "the S3-compatible store on port " + httpPort,
        Duration.ofSeconds(90),
        Duration.ofMillis(200),
        process::requireAlive,
        () -> server.answers(bucket));
    return server;
  }

  /** The endpoint for {@code s3.endpoint} (path-style access). */
  public String endpoint() {
    return "http://127.0.0.1:" + port;
  }

  private boolean answers(String bucket) {
    return HttpProbe.answersOk(
        HttpRequest.newBuilder(URI.create(endpoint() + "/" + bucket))
            .method("HEAD", HttpRequest.BodyPublishers.noBody())
            .timeout(Duration.ofSeconds(2))
            .build());
  }

  @Override
  public void close() {
    process.stop(Duration.ofSeconds(15));
  }
}
