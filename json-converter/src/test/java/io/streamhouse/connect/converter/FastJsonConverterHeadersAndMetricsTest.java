package io.streamhouse.connect.converter;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;

/**
 * FastJsonConverter as a header converter reads and writes headers as JsonConverter does; its
 * counts of records read and handed to JsonConverter are on JMX while it is configured.
 */
class FastJsonConverterHeadersAndMetricsTest {
  private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

  @Test
  void asAHeaderConverterItReadsAndWritesHeadersAsJsonConverterDoes() {
    Map<String, Object> config = Map.of("converter.type", "header", "schemas.enable", true);
    JsonConverter kafkas = new JsonConverter();
    kafkas.configure(config);
    try (FastJsonConverter ours = new FastJsonConverter()) {
      ours.configure(config);
      Schema schema = SchemaBuilder.struct().field("id", Schema.INT64_SCHEMA).build();
      Struct value = new Struct(schema).put("id", 42L);

      byte[] bytes = ours.fromConnectHeader("t", "h", schema, value);
      assertThat(bytes).isEqualTo(kafkas.fromConnectHeader("t", "h", schema, value));
      SchemaAndValue read = ours.toConnectHeader("t", "h", bytes);
      assertThat(read).isEqualTo(kafkas.toConnectHeader("t", "h", bytes));
      assertThat(((Struct) read.value()).getInt64("id")).isEqualTo(42L);
    }
  }

  @Test
  void itsFallbacksAreOnJmxUntilItCloses() throws Exception {
    FastJsonConverter converter = new FastJsonConverter();
    converter.configure(Map.of("schemas.enable", true), false);
    ObjectName name = converter.metricsName();
    assertThat(name).isNotNull();
    assertThat(name.getKeyProperty("role")).isEqualTo("value");

    String schema = "{\"type\":\"struct\",\"fields\":[{\"type\":\"int64\",\"field\":\"id\"}]}";
    for (int id = 0; id < 5; id++) {
      String json = "{\"schema\":" + schema + ",\"payload\":{\"id\":" + id + "}}";
      converter.toConnectData("t", json.getBytes(UTF_8));
    }
    // The envelope's fields the other way round: valid, but not read by the fast path.
    SchemaAndValue turned =
        converter.toConnectData(
            "t", "{\"payload\":7,\"schema\":{\"type\":\"int64\"}}".getBytes(UTF_8));
    assertThat(turned.value()).isEqualTo(7L);

    // The first record of the schema (which gives the schema to cache) and the turned envelope.
    assertThat(JMX.getAttribute(name, "Fallbacks")).isEqualTo(2L);

    converter.close();
    assertThat(JMX.isRegistered(name)).isFalse();
  }
}
