package io.streamhouse.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Reads a Nessie server's commit log and the Iceberg tables at a commit through its REST API v2, as
 * Nessie 0.99 answers (checked against a running 0.99.0):
 *
 * <ul>
 *   <li>{@code GET trees/main} gives {@code {"reference": {"type": "BRANCH", "name": "main",
 *       "hash": H}}}.
 *   <li>{@code GET trees/main/history} gives {@code {"token": T|null, "logEntries": [{"commitMeta":
 *       {"hash": H, "message": M, "parentCommitHashes": [P], ...}, "parentCommitHash": P,
 *       "operations": null}], "hasMore": bool}}, newest first. The next page is asked for with the
 *       query parameter {@code page-token=T}; an unknown name such as {@code pageToken} is ignored
 *       and the first page comes back again.
 *   <li>{@code GET trees/main@H/entries?content=true} gives {@code {"token": T|null, "entries":
 *       [{"type": "ICEBERG_TABLE", "name": {"elements": ["ns", "table"]}, "contentId": I,
 *       "content": {"type": "ICEBERG_TABLE", "metadataLocation": "s3://...", "snapshotId": S,
 *       ...}}], "effectiveReference": {...}, "hasMore": bool}}, namespaces included (type {@code
 *       NAMESPACE}), paged the same way.
 * </ul>
 */
final class NessieCommits {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final String apiUri;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  NessieCommits(String apiUri) {
    this.apiUri = apiUri;
  }

  /** The hash of the head of branch {@code main}. */
  String head() {
    return get("trees/main").path("reference").path("hash").asText();
  }

  /** The commits of branch {@code main}, oldest first. */
  List<String> hashes() {
    List<String> newestFirst = new ArrayList<>();
    pages(
        "trees/main/history",
        page -> page.path("logEntries").forEach(e -> newestFirst.add(hash(e))));
    Collections.reverse(newestFirst);
    return newestFirst;
  }

  /**
   * Each Iceberg table's key ({@code ns.table}) to its metadata location at commit {@code hash}.
   */
  Map<String, String> metadataLocations(String hash) {
    Map<String, String> locations = new TreeMap<>();
    pages(
        "trees/main@" + hash + "/entries?content=true",
        page ->
            page.path("entries")
                .forEach(
                    e -> {
                      if ("ICEBERG_TABLE".equals(e.path("type").asText())) {
                        locations.put(
                            String.join(".", texts(e.path("name").path("elements"))),
                            e.path("content").path("metadataLocation").asText());
                      }
                    }));
    return locations;
  }

  private static String hash(JsonNode logEntry) {
    String hash = logEntry.path("commitMeta").path("hash").asText("");
    if (hash.isEmpty()) {
      throw new IllegalStateException("A Nessie log entry without commitMeta.hash: " + logEntry);
    }
    return hash;
  }

  private static List<String> texts(JsonNode array) {
    List<String> texts = new ArrayList<>();
    array.forEach(n -> texts.add(n.asText()));
    return texts;
  }

  /** Gets {@code path} page by page until {@code hasMore} is false. */
  private void pages(String path, Consumer<JsonNode> eachPage) {
    String separator = path.contains("?") ? "&" : "?";
    String token = null;
    for (int page = 0; page < 10_000; page++) {
      JsonNode body =
          get(
              token == null
                  ? path
                  : path
                      + separator
                      + "page-token="
                      + URLEncoder.encode(token, StandardCharsets.UTF_8));
      eachPage.accept(body);
      String next = body.path("token").asText(null);
      if (!body.path("hasMore").asBoolean(false) || next == null || next.equals(token)) {
        return;
      }
      token = next;
    }
    throw new IllegalStateException("More than 10000 pages from Nessie for " + path);
  }

  private JsonNode get(String path) {
    URI uri = URI.create(apiUri + "/" + path);
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(uri)
                  .header("Accept", "application/json")
                  .timeout(TIMEOUT)
                  .build(),
              HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      if (response.statusCode() != 200) {
        throw new IllegalStateException(
            "GET " + uri + " answered " + response.statusCode() + ": " + response.body());
      }
      return JSON.readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException("GET " + uri + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted during GET " + uri, e);
    }
  }
}
