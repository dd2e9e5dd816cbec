package io.streamhouse.connect.table.iceberg;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.util.JsonUtil;

/**
 * Data files to and from bytes for the control topic: a JSON array of Iceberg's own content-file
 * JSON ({@link ContentFileParser}, the encoding of Iceberg's REST scan planning), data only.
 * Decoding resolves each file's partition spec among the table's, so a file of an unknown spec is
 * refused; Jackson's read constraints bound nesting, names and numbers, and the input is bounded by
 * the control-event size limits. The version changes whenever this encoding does. A batch whose
 * files were written with a schema change not committed yet (round-atomic mode) is version {@value
 * #VERSION_WITH_SCHEMA}: a JSON object with that schema ({@link CarriedSchema}) and the same array
 * under {@code files}, so that a plugin which cannot apply the schema refuses the batch.
 */
final class DataFilesCodec {
  /** 1 was Java serialization, which no plugin version reads any more. */
  static final int VERSION = 2;

  static final int VERSION_WITH_SCHEMA = 4;

  private static final String FILES = "files";

  /** The files of a batch, and the schema they were written with when it is not committed yet. */
  record Decoded(List<DataFile> files, Optional<Schema> schema) {}

  private DataFilesCodec() {}

  /** The version of a batch with {@code schema} ({@link #encode}). */
  static int version(Optional<Schema> schema) {
    return schema.isPresent() ? VERSION_WITH_SCHEMA : VERSION;
  }

  static byte[] encode(List<DataFile> files, Map<Integer, PartitionSpec> specs) {
    return encode(files, specs, Optional.empty());
  }

  static byte[] encode(
      List<DataFile> files, Map<Integer, PartitionSpec> specs, Optional<Schema> schema) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(512 * Math.max(1, files.size()));
    try (JsonGenerator json = JsonUtil.factory().createGenerator(bytes)) {
      if (schema.isPresent()) {
        json.writeStartObject();
        CarriedSchema.write(json, schema.get());
        json.writeFieldName(FILES);
      }
      json.writeStartArray();
      for (DataFile file : files) {
        ContentFileParser.toJson(file, specs.get(file.specId()), json);
      }
      json.writeEndArray();
      if (schema.isPresent()) {
        json.writeEndObject();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot encode data files", e);
    }
    return bytes.toByteArray();
  }

  /**
   * The data files of {@code payload}, read against the table's partition specs.
   *
   * @throws InvalidDataFilesException for any payload that is not such a list
   */
  static List<DataFile> decode(int version, byte[] payload, Map<Integer, PartitionSpec> specs)
      throws InvalidDataFilesException {
    return decodeWithSchema(version, payload, specs).files();
  }

  /**
   * The data files of {@code payload} and the schema it carries, if any.
   *
   * @throws InvalidDataFilesException for any payload that is not such a list
   */
  static Decoded decodeWithSchema(int version, byte[] payload, Map<Integer, PartitionSpec> specs)
      throws InvalidDataFilesException {
    if (version != VERSION && version != VERSION_WITH_SCHEMA) {
      throw new InvalidDataFilesException(
          "unknown data file encoding version "
              + version
              + " (this plugin reads "
              + "versions "
              + VERSION
              + " and "
              + VERSION_WITH_SCHEMA
              + "): are all workers on the same plugin version?");
    }
    JsonNode root;
    try {
      root = JsonUtil.mapper().readTree(payload);
    } catch (IOException | RuntimeException e) {
      throw new InvalidDataFilesException("not JSON: " + e.getMessage());
    }
    Optional<Schema> schema = Optional.empty();
    JsonNode array = root;
    if (version == VERSION_WITH_SCHEMA) {
      if (root == null || !root.isObject()) {
        throw new InvalidDataFilesException("not a JSON object of a schema and data files");
      }
      schema = CarriedSchema.read(root);
      if (schema.isEmpty()) {
        throw new InvalidDataFilesException("no schema");
      }
      array = root.get(FILES);
    }
    if (array == null || !array.isArray()) {
      throw new InvalidDataFilesException("not a JSON array of data files");
    }
    List<DataFile> files = new ArrayList<>(array.size());
    for (JsonNode node : array) {
      JsonNode specId = node.get("spec-id");
      if (specId == null || !specId.canConvertToInt() || !specs.containsKey(specId.asInt())) {
        throw new InvalidDataFilesException(
            "a data file names partition spec "
                + specId
                + ", which the table "
                + "does not have (it has "
                + specs.keySet()
                + ")");
      }
      ContentFile<?> file;
      try {
        file = ContentFileParser.fromJson(node, specs);
      } catch (RuntimeException e) {
        throw new InvalidDataFilesException("not a data file: " + e.getMessage());
      }
      if (!(file instanceof DataFile dataFile)) {
        throw new InvalidDataFilesException(
            "a " + file.content() + " file where only data files are expected");
      }
      files.add(dataFile);
    }
    return new Decoded(files, schema);
  }

  /** A payload that is not a list of data files of the table. */
  static final class InvalidDataFilesException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidDataFilesException(String message) {
      super(message, null, false, false);
    }
  }
}
