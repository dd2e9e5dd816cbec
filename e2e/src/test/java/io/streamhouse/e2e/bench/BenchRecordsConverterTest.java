package io.streamhouse.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.converter.FastJsonConverter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;

/** The drain benchmark's records read alike through JsonConverter and FastJsonConverter. */
class BenchRecordsConverterTest {
  @Test
  void fastJsonConverterReadsBenchRecordsAsJsonConverterDoes() {
    JsonConverter kafka = new JsonConverter();
    FastJsonConverter ours = new FastJsonConverter();
    kafka.configure(Map.of("schemas.enable", true), false);
    ours.configure(Map.of("schemas.enable", true), false);
    BenchRecords records = new BenchRecords();
    for (int i = 0; i < 5_000; i++) {
      byte[] value = records.nextJson(i, "orders").getBytes(StandardCharsets.UTF_8);
      SchemaAndValue expected = kafka.toConnectData("bench", value);
      SchemaAndValue actual = ours.toConnectData("bench", value);
      assertThat(actual.schema()).isEqualTo(expected.schema());
      assertThat(actual.value()).isEqualTo(expected.value());
    }
  }
}
