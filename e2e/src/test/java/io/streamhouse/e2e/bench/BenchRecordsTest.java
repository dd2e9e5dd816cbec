package io.streamhouse.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The benchmarks' records: their shape, their repeatability and their nulls. */
class BenchRecordsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int N = 2_000;

  @Test
  void aRecordHasElevenLeafColumnsWithItsSchemaInTheEnvelope() throws Exception {
    JsonNode record = JSON.readTree(new BenchRecords().nextJson(7, "fanout.t7"));
    JsonNode schema = record.get("schema");
    assertThat(schema.get("type").asText()).isEqualTo("struct");
    assertThat(leaves(schema, "")).hasSize(11);
    assertThat(leaves(schema, ""))
        .containsExactly(
            "id",
            "table",
            "customer.name",
            "customer.city",
            "tags[]",
            "note",
            "amount",
            "quantity",
            "discount_pct",
            "status",
            "created_at");
    JsonNode createdAt = field(schema, "created_at");
    assertThat(createdAt.get("type").asText()).isEqualTo("int64");
    assertThat(createdAt.get("name").asText()).isEqualTo("org.apache.kafka.connect.data.Timestamp");

    JsonNode payload = record.get("payload");
    List<String> payloadFields = new ArrayList<>();
    payload.fieldNames().forEachRemaining(payloadFields::add);
    List<String> schemaFields = new ArrayList<>();
    schema.get("fields").forEach(f -> schemaFields.add(f.get("field").asText()));
    assertThat(payloadFields).isEqualTo(schemaFields);
    assertThat(payload.get("id").asLong()).isEqualTo(7);
    assertThat(payload.get("table").asText()).isEqualTo("fanout.t7");
    assertThat(payload.get("customer").get("name").asText()).isNotBlank();
    assertThat(payload.get("customer").get("city").asText()).isNotBlank();
    assertThat(payload.get("tags").isArray()).isTrue();
    assertThat(payload.get("created_at").asLong()).isEqualTo(1_767_225_600_000L + 700);
  }

  @Test
  void theSameSeedGivesTheSameRecords() {
    BenchRecords a = new BenchRecords(42);
    BenchRecords b = new BenchRecords(42);
    BenchRecords other = new BenchRecords(43);
    boolean differs = false;
    for (long id = 0; id < N; id++) {
      String json = a.nextJson(id, "t");
      assertThat(b.nextJson(id, "t")).isEqualTo(json);
      differs |= !other.nextJson(id, "t").equals(json);
    }
    assertThat(differs).as("another seed gives other records").isTrue();
    assertThat(a.meanPayloadBytes()).isEqualTo(b.meanPayloadBytes()).isGreaterThan(200);
    assertThat(a.meanRecordBytes()).isGreaterThan(a.meanPayloadBytes());
  }

  @Test
  void optionalFieldsAreSometimesNullAndTheNoteIsUnicodeText() throws Exception {
    BenchRecords records = new BenchRecords();
    int noteNull = 0;
    int quantityNull = 0;
    int discountNull = 0;
    Set<Integer> tagCounts = new HashSet<>();
    Set<String> statuses = new HashSet<>();
    for (long id = 0; id < N; id++) {
      JsonNode p = JSON.readTree(records.nextJson(id, "t")).get("payload");
      tagCounts.add(p.get("tags").size());
      statuses.add(p.get("status").asText());
      quantityNull += p.get("quantity").isNull() ? 1 : 0;
      discountNull += p.get("discount_pct").isNull() ? 1 : 0;
      if (p.get("note").isNull()) {
        noteNull++;
        continue;
      }
      String note = p.get("note").asText();
      assertThat(note.codePointCount(0, note.length())).isBetween(40, 120);
      assertThat(note.codePoints().filter(c -> c > 0xFFFF)).as("an emoji: " + note).hasSize(1);
      assertThat(note.codePoints().anyMatch(c -> c >= 0xC0 && c <= 0x24F || c >= 0x3040))
          .as("accented Latin or CJK: " + note)
          .isTrue();
    }
    assertThat(noteNull).as("note null in ~10 %").isBetween(N * 6 / 100, N * 14 / 100);
    assertThat(discountNull).as("discount_pct null in ~70 %").isBetween(N * 65 / 100, N * 75 / 100);
    assertThat(quantityNull).as("quantity sometimes null").isBetween(1, N * 10 / 100);
    assertThat(tagCounts).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
    assertThat(statuses).hasSizeGreaterThan(2);
  }

  /** Leaf column paths of a Connect JSON schema: struct fields dotted, array elements as []. */
  private static List<String> leaves(JsonNode schema, String path) {
    List<String> leaves = new ArrayList<>();
    switch (schema.get("type").asText()) {
      case "struct" ->
          schema
              .get("fields")
              .forEach(
                  f ->
                      leaves.addAll(
                          leaves(
                              f,
                              path.isEmpty()
                                  ? f.get("field").asText()
                                  : path + "." + f.get("field").asText())));
      case "array" -> leaves.addAll(leaves(schema.get("items"), path + "[]"));
      case "map" -> {
        leaves.addAll(leaves(schema.get("keys"), path + ".key"));
        leaves.addAll(leaves(schema.get("values"), path + ".value"));
      }
      default -> leaves.add(path);
    }
    return leaves;
  }

  private static JsonNode field(JsonNode struct, String name) {
    for (JsonNode f : struct.get("fields")) {
      if (f.get("field").asText().equals(name)) {
        return f;
      }
    }
    throw new AssertionError("no field " + name);
  }
}
