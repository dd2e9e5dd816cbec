package io.streamhouse.connect.table.iceberg;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.connect.table.iceberg.DataFilesCodec.InvalidDataFilesException;
import java.io.IOException;
import java.util.Optional;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;

/**
 * The schema a batch's files were written with, in the batch's JSON when a task changed its table's
 * schema without committing it (round-atomic mode, {@link PendingSchemas}): Iceberg's own schema
 * JSON under {@value #FIELD}. The coordinator joins it into the table's schema in the round's
 * commit ({@link SchemaUnion}). Read from the control topic, so checked: anything that is not an
 * Iceberg schema is refused with the batch.
 */
final class CarriedSchema {
  static final String FIELD = "schema";

  private CarriedSchema() {}

  static void write(JsonGenerator json, Schema schema) throws IOException {
    json.writeFieldName(FIELD);
    SchemaParser.toJson(schema, json);
  }

  /**
   * @throws InvalidDataFilesException if {@code root} has a schema that Iceberg cannot read
   */
  static Optional<Schema> read(JsonNode root) throws InvalidDataFilesException {
    JsonNode node = root.get(FIELD);
    if (node == null) {
      return Optional.empty();
    }
    if (!node.isObject()) {
      throw new InvalidDataFilesException("a schema that is not a JSON object");
    }
    try {
      return Optional.of(SchemaParser.fromJson(node));
    } catch (RuntimeException e) {
      throw new InvalidDataFilesException("not an Iceberg schema: " + e.getMessage());
    }
  }
}
