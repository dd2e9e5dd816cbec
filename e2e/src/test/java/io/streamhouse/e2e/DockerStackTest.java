package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docker/docker-compose.yml cannot run here (no Docker engine), so this reads it and the files it
 * uses: every mounted file and every file the Connect image copies exists, images are pinned, and
 * the pieces refer to each other correctly (scrape target, rule files, datasource, dashboard path,
 * the connector's hosts and secrets).
 */
class DockerStackTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern FILE_SECRET = Pattern.compile("\\$\\{file:([^:}]+):([^}]+)}");

  private final Path docker = E2eSettings.repoRoot().resolve("docker");
  private final JsonNode services =
      read(YAML, docker.resolve("docker-compose.yml")).path("services");

  @Test
  void theStackRunsKafkaConnectACatalogAnObjectStorePrometheusAndGrafana() {
    assertThat(iterable(services.fieldNames()))
        .contains("kafka", "connect", "iceberg-rest", "minio", "prometheus", "grafana");
  }

  @Test
  void everyMountedFileExists() {
    int binds = 0;
    for (Map.Entry<String, JsonNode> service : services.properties()) {
      for (Map.Entry<Path, String> mount : binds(service.getValue()).entrySet()) {
        assertThat(mount.getKey()).as("%s mounts %s", service.getKey(), mount.getKey()).exists();
        binds++;
      }
    }
    assertThat(binds).as("bind mounts in the stack").isGreaterThanOrEqualTo(6);
  }

  @Test
  void everyImageIsPinnedAndTheConnectImageCopiesFilesThatExist() throws IOException {
    for (Map.Entry<String, JsonNode> service : services.properties()) {
      if (service.getValue().has("image")) {
        assertThat(service.getValue().path("image").asText())
            .as("image of %s", service.getKey())
            .matches("[^:]+:[^:]+")
            .doesNotEndWith(":latest");
      }
    }
    JsonNode build = services.path("connect").path("build");
    Path context = docker.resolve(build.path("context").asText()).normalize();
    Path dockerfile = context.resolve(build.path("dockerfile").asText());
    assertThat(dockerfile).exists();
    int copied = 0;
    for (String line : Files.readAllLines(dockerfile)) {
      String[] words = line.trim().split("\\s+");
      if ((words[0].equals("COPY") || words[0].equals("ADD")) && !words[1].startsWith("--from=")) {
        for (int i = 1; i < words.length - 1; i++) {
          if (!words[i].startsWith("http")) {
            assertThat(context.resolve(words[i])).as("%s of %s", words[0], words[i]).exists();
            copied++;
          }
        }
      }
      if (words[0].equals("FROM")) {
        assertThat(words[1]).as("base image").matches("[^:]+:[^:]+").doesNotEndWith(":latest");
      }
    }
    assertThat(copied)
        .as("files the Connect image copies from the repository")
        .isGreaterThanOrEqualTo(2);
  }

  @Test
  void theWorkerLoadsThePluginAndTheExporterRulesWhereTheImagePutsThem() throws IOException {
    String dockerfile = Files.readString(docker.resolve("connect/Dockerfile"));
    Properties worker = properties(docker.resolve("connect/connect-distributed.properties"));
    assertThat(dockerfile)
        .contains("/connector/target/plugin-path/ " + worker.getProperty("plugin.path") + "/");
    assertThat(worker.getProperty("plugin.discovery")).isEqualTo("service_load");
    assertThat(dockerfile)
        .contains(
            "COPY docker/connect/connect-distributed.properties /opt/streamhouse/connect-distributed.properties")
        .contains("connect-distributed.sh\", \"/opt/streamhouse/connect-distributed.properties\"]");
    Matcher agent = Pattern.compile("-javaagent:(\\S+)=(\\d+):(\\S+?)\"").matcher(dockerfile);
    assertThat(agent.find()).as("KAFKA_OPTS with the exporter agent").isTrue();
    assertThat(dockerfile).contains("jmx_prometheus_javaagent-1.0.1.jar " + agent.group(1));
    assertThat(dockerfile)
        .contains("COPY docker/jmx-exporter/streamhouse-connect.yml " + agent.group(3));
    assertThat(iterable(services.path("connect").path("ports").elements()))
        .extracting(JsonNode::asText)
        .contains(agent.group(2) + ":" + agent.group(2));

    JsonNode prometheus = read(YAML, docker.resolve("prometheus/prometheus.yml"));
    List<String> targets = new ArrayList<>();
    prometheus
        .path("scrape_configs")
        .forEach(
            c ->
                c.path("static_configs")
                    .forEach(s -> s.path("targets").forEach(t -> targets.add(t.asText()))));
    assertThat(targets).containsExactly("connect:" + agent.group(2));
    Map<String, Path> prometheusMounts = mountTargets(services.path("prometheus"));
    assertThat(prometheusMounts).containsKey("/etc/prometheus/prometheus.yml");
    prometheus
        .path("rule_files")
        .forEach(
            rules ->
                assertThat(prometheusMounts)
                    .as("rule file mounted")
                    .containsEntry(
                        rules.asText(), docker.resolve("prometheus/alerts.yml").normalize()));
  }

  @Test
  void grafanaProvisionsTheDashboardOnThePrometheusDatasource() {
    Map<String, Path> mounts = mountTargets(services.path("grafana"));
    Path provisioning = mounts.get("/etc/grafana/provisioning");
    assertThat(provisioning).isNotNull();
    JsonNode datasource =
        read(YAML, provisioning.resolve("datasources/prometheus.yml")).path("datasources").get(0);
    assertThat(datasource.path("url").asText()).isEqualTo("http://prometheus:9090");
    assertThat(URI.create(datasource.path("url").asText()).getHost())
        .isIn(iterable(services.fieldNames()));

    String dashboardsPath =
        read(YAML, provisioning.resolve("dashboards/streamhouse.yml"))
            .path("providers")
            .get(0)
            .path("options")
            .path("path")
            .asText();
    Path dashboards = mounts.get(dashboardsPath);
    assertThat(dashboards).as("the provider's folder is mounted").isNotNull();
    JsonNode dashboard = read(JSON, dashboards.resolve("streamhouse-sink.json"));
    assertThat(
            services
                .path("grafana")
                .path("environment")
                .path("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH")
                .asText())
        .isEqualTo(dashboardsPath + "/streamhouse-sink.json");

    assertThat(dashboard.findValues("datasource"))
        .isNotEmpty()
        .allSatisfy(
            ds -> assertThat(ds.path("uid").asText()).isEqualTo(datasource.path("uid").asText()));
    for (JsonNode panel : dashboard.path("panels")) {
      if (!panel.path("type").asText().equals("row")) {
        assertThat(panel.path("targets"))
            .as("queries of panel %s", panel.path("title"))
            .isNotEmpty()
            .allSatisfy(t -> assertThat(t.path("expr").asText()).isNotBlank());
      }
    }
  }

  @Test
  void theStacksConnectorReachesServicesOfTheStackAndReadsMountedSecrets() throws IOException {
    Map<String, Path> initMounts = mountTargets(services.path("connector-init"));
    Path example = E2eSettings.repoRoot().resolve("config-examples/iceberg-rest-s3.json");
    assertThat(initMounts).containsValue(example);
    String posted =
        initMounts.entrySet().stream()
            .filter(e -> e.getValue().equals(example))
            .findFirst()
            .orElseThrow()
            .getKey();
    assertThat(services.path("connector-init").path("command").get(0).asText())
        .contains("@" + posted);

    JsonNode config = read(JSON, example).path("config");
    List<String> names = iterable(services.fieldNames());
    assertThat(config.path("kafka.bootstrap.servers").asText().split(":")[0]).isIn(names);
    assertThat(URI.create(config.path("catalog.lake.uri").asText()).getHost()).isIn(names);
    assertThat(URI.create(config.path("catalog.lake.s3.endpoint").asText()).getHost()).isIn(names);

    Map<String, Path> connectMounts = mountTargets(services.path("connect"));
    Properties worker = properties(docker.resolve("connect/connect-distributed.properties"));
    assertThat(worker.getProperty("config.providers")).isEqualTo("file");
    Map<String, String> secrets = new HashMap<>();
    for (Map.Entry<String, JsonNode> entry : config.properties()) {
      Matcher m = FILE_SECRET.matcher(entry.getValue().asText());
      if (m.matches()) {
        Path file = connectMounts.get(m.group(1));
        assertThat(file)
            .as("%s reads %s, mounted into connect", entry.getKey(), m.group(1))
            .isNotNull();
        assertThat(properties(file).getProperty(m.group(2)))
            .as("%s in %s", m.group(2), file)
            .isNotBlank();
        secrets.put(m.group(2), properties(file).getProperty(m.group(2)));
      }
    }
    JsonNode minio = services.path("minio").path("environment");
    assertThat(secrets)
        .containsEntry("access-key-id", minio.path("MINIO_ROOT_USER").asText())
        .containsEntry("secret-access-key", minio.path("MINIO_ROOT_PASSWORD").asText());
    JsonNode catalog = services.path("iceberg-rest").path("environment");
    assertThat(catalog.path("AWS_ACCESS_KEY_ID").asText()).isEqualTo(secrets.get("access-key-id"));
    assertThat(catalog.path("CATALOG_S3_ENDPOINT").asText())
        .isEqualTo(config.path("catalog.lake.s3.endpoint").asText());
  }

  /** Host paths of a service's bind mounts, resolved against docker/, to their container paths. */
  private Map<Path, String> binds(JsonNode service) {
    Map<Path, String> binds = new HashMap<>();
    for (JsonNode volume : service.path("volumes")) {
      String source;
      String target;
      if (volume.isTextual()) {
        String[] parts = volume.asText().split(":");
        source = parts[0];
        target = parts[1];
      } else {
        source = volume.path("source").asText();
        target = volume.path("target").asText();
      }
      if (source.startsWith(".") || source.startsWith("/")) {
        binds.put(docker.resolve(source).normalize(), target);
      }
    }
    return binds;
  }

  private Map<String, Path> mountTargets(JsonNode service) {
    Map<String, Path> targets = new HashMap<>();
    binds(service).forEach((source, target) -> targets.put(target, source));
    return targets;
  }

  private static JsonNode read(ObjectMapper mapper, Path file) {
    try {
      return mapper.readTree(file.toFile());
    } catch (IOException e) {
      throw new AssertionError("Cannot parse " + file + ": " + e.getMessage(), e);
    }
  }

  private static Properties properties(Path file) throws IOException {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file)) {
      properties.load(reader);
    }
    return properties;
  }

  private static <T> List<T> iterable(java.util.Iterator<T> iterator) {
    List<T> list = new ArrayList<>();
    iterator.forEachRemaining(list::add);
    return list;
  }
}
