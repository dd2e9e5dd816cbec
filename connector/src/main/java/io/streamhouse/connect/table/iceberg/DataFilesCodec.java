package io.streamhouse.connect.table.iceberg;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ContentFileParser;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.util.JsonUtil;

/**
 * Data files to and from bytes for the control topic: a JSON array of Iceberg's own content-file
 * JSON ({@link ContentFileParser}, the encoding of Iceberg's REST scan planning), data only.
 * Decoding resolves each file's partition spec among the table's, so a file of an unknown spec is
 * refused; Jackson's read constraints bound nesting, names and numbers, and the input is bounded by
 * the control-event size limits. The version changes whenever this encoding does.
 */
final class DataFilesCodec {
  /** 1 was Java serialization, which no plugin version reads any more. */
  static final int VERSION = 2;

  private DataFilesCodec() {}

  static byte[] encode(List<DataFile> files, Map<Integer, PartitionSpec> specs) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(512 * Math.max(1, files.size()));
    try (JsonGenerator json = JsonUtil.factory().createGenerator(bytes)) {
      json.writeStartArray();
      for (DataFile file : files) {
        ContentFileParser.toJson(file, specs.get(file.specId()), json);
      }
      json.writeEndArray();
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
    if (version != VERSION) {
      throw new InvalidDataFilesException(
          "unknown data file encoding version "
              + version
              + " (this plugin reads "
              + "version "
              + VERSION
              + "): are all workers on the same plugin version?");
    }
    JsonNode array;
    try {
      array = JsonUtil.mapper().readTree(payload);
    } catch (IOException | RuntimeException e) {
      throw new InvalidDataFilesException("not JSON: " + e.getMessage());
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
    return files;
  }

  /** A payload that is not a list of data files of the table. */
  static final class InvalidDataFilesException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidDataFilesException(String message) {
      super(message, null, false, false);
    }
  }
}
