package io.streamhouse.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/** A small client for the Kafka Connect REST API. Every call fails on an unexpected status. */
public final class ConnectRestClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

  private final String baseUrl;
  private final HttpClient http;

  public ConnectRestClient(String baseUrl) {
    this.baseUrl = baseUrl;
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  }

  public String baseUrl() {
    return baseUrl;
  }

  /** True when the worker's REST API answers {@code GET /connectors} with 200. */
  public boolean isReady() {
    try {
      return send("GET", "/connectors", null).statusCode() == 200;
    } catch (IllegalStateException e) {
      return false;
    }
  }

  /** {@code GET /} : worker version and Kafka cluster id. */
  public JsonNode serverInfo() {
    return call("GET", "/", null, 200);
  }

  /** {@code GET /connector-plugins}: the connector plugins the worker loaded. */
  public JsonNode connectorPlugins() {
    return call("GET", "/connector-plugins", null, 200);
  }

  /** {@code PUT /connector-plugins/CLASS/config/validate}: per-key validation result. */
  public JsonNode validate(Map<String, String> config) {
    String connectorClass = config.get("connector.class");
    return call(
        "PUT", "/connector-plugins/" + encode(connectorClass) + "/config/validate", config, 200);
  }

  /** {@code PUT /connectors/NAME/config}: creates or updates a connector. */
  public JsonNode putConfig(String name, Map<String, String> config) {
    return call("PUT", "/connectors/" + encode(name) + "/config", config, 200, 201);
  }

  public JsonNode config(String name) {
    return call("GET", "/connectors/" + encode(name) + "/config", null, 200);
  }

  /** {@code GET /connectors/NAME/tasks}: each task's id and configuration. */
  public JsonNode tasks(String name) {
    return call("GET", "/connectors/" + encode(name) + "/tasks", null, 200);
  }

  /** {@code GET /connectors/NAME/status}. */
  public JsonNode status(String name) {
    return call("GET", "/connectors/" + encode(name) + "/status", null, 200);
  }

  /** {@code GET /connectors/NAME/offsets}: the sink's committed consumer offsets (KIP-875). */
  public JsonNode offsets(String name) {
    return call("GET", "/connectors/" + encode(name) + "/offsets", null, 200);
  }

  public void pause(String name) {
    call("PUT", "/connectors/" + encode(name) + "/pause", null, 202);
  }

  public void resume(String name) {
    call("PUT", "/connectors/" + encode(name) + "/resume", null, 202);
  }

  /** {@code PUT /connectors/NAME/stop} (Connect 3.5+): tasks shut down, config kept. */
  public void stop(String name) {
    call("PUT", "/connectors/" + encode(name) + "/stop", null, 202, 204);
  }

  /**
   * {@code DELETE /connectors/NAME/offsets} (Connect 3.6+, connector STOPPED): a sink's consumer
   * group offsets go.
   */
  public void resetOffsets(String name) {
    call("DELETE", "/connectors/" + encode(name) + "/offsets", null, 200);
  }

  public void delete(String name) {
    call("DELETE", "/connectors/" + encode(name), null, 204);
  }

  /** {@code POST /connectors/NAME/restart?includeTasks=..&onlyFailed=..}. */
  public void restart(String name, boolean includeTasks, boolean onlyFailed) {
    call(
        "POST",
        "/connectors/"
            + encode(name)
            + "/restart?includeTasks="
            + includeTasks
            + "&onlyFailed="
            + onlyFailed,
        null,
        200,
        202,
        204);
  }

  /** {@code POST /connectors/NAME/tasks/ID/restart}. */
  public void restartTask(String name, int task) {
    call("POST", "/connectors/" + encode(name) + "/tasks/" + task + "/restart", null, 200, 204);
  }

  /** Throws with the worker's trace if the connector or one of its tasks is FAILED. */
  public void requireNotFailed(String name) {
    HttpResponse<String> response = send("GET", "/connectors/" + encode(name) + "/status", null);
    if (response.statusCode() != 200) {
      return;
    }
    JsonNode status = parse(response.body());
    if ("FAILED".equals(status.path("connector").path("state").asText())) {
      throw new IllegalStateException(
          "Connector " + name + " FAILED: " + status.path("connector").path("trace").asText());
    }
    for (JsonNode task : status.path("tasks")) {
      if ("FAILED".equals(task.path("state").asText())) {
        throw new IllegalStateException(
            "Task "
                + name
                + "-"
                + task.path("id").asInt()
                + " FAILED on "
                + task.path("worker_id").asText()
                + ": "
                + task.path("trace").asText());
      }
    }
  }

  /** True when the connector and exactly {@code tasks} tasks are RUNNING. */
  public boolean isRunning(String name, int tasks) {
    HttpResponse<String> response = send("GET", "/connectors/" + encode(name) + "/status", null);
    if (response.statusCode() != 200) {
      return false;
    }
    JsonNode status = parse(response.body());
    if (!"RUNNING".equals(status.path("connector").path("state").asText())) {
      return false;
    }
    JsonNode taskList = status.path("tasks");
    if (taskList.size() != tasks) {
      return false;
    }
    for (JsonNode task : taskList) {
      if (!"RUNNING".equals(task.path("state").asText())) {
        return false;
      }
    }
    return true;
  }

  private JsonNode call(String method, String path, Object body, int... expected) {
    // 409: the worker is rebalancing; a 500 "trying to forward" means the leader it forwarded to
    // has just
    // left the group (a worker stopped). Both are safe to repeat once the group has settled.
    long deadline = System.nanoTime() + REQUEST_TIMEOUT.toNanos();
    while (true) {
      HttpResponse<String> response = send(method, path, body);
      for (int status : expected) {
        if (response.statusCode() == status) {
          return response.body().isBlank() ? NullNode.getInstance() : parse(response.body());
        }
      }
      boolean leaderGone =
          response.statusCode() == 500
              && response.body().contains("trying to forward REST request");
      if ((response.statusCode() != 409 && !leaderGone) || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            method
                + " "
                + baseUrl
                + path
                + " answered "
                + response.statusCode()
                + ": "
                + response.body());
      }
      pause409();
    }
  }

  private static void pause409() {
    try {
      Thread.sleep(250);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted", e);
    }
  }

  private HttpResponse<String> send(String method, String path, Object body) {
    try {
      HttpRequest.BodyPublisher publisher =
          body == null
              ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body));
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(baseUrl + path))
              .timeout(REQUEST_TIMEOUT)
              .header("Content-Type", "application/json")
              .header("Accept", "application/json")
              .method(method, publisher)
              .build();
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(method + " " + baseUrl + path + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted: " + method + " " + path, e);
    }
  }

  private static JsonNode parse(String body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new IllegalStateException("Not JSON: " + body, e);
    }
  }

  private static String encode(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
