package io.streamhouse.connect.table.iceberg;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.table.iceberg.DataFilesCodec.InvalidDataFilesException;
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
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.util.JsonUtil;

/**
 * The batch of a keyed table's writer to and from bytes for the control topic: a JSON object with
 * its data files and position delete files (Iceberg's own content-file JSON), the data files the
 * deletes point into, the writer's id, what its key index was read from (snapshot, watermarks and
 * key writers) and the keys it changed without knowing a row of them ({@link UnseenKeys}: absent in
 * a batch of an older version, read as none), which the coordinator checks before it commits
 * (docs/iceberg-primary-key-tables.md). Decoding refuses anything else: equality deletes, unknown
 * specs, missing fields. A batch written with a schema change not committed yet (round-atomic mode)
 * carries that schema ({@link CarriedSchema}) and is version {@value #VERSION_WITH_SCHEMA}, which a
 * plugin that cannot apply it refuses.
 */
final class KeyedFilesCodec {
  static final int VERSION = 3;

  static final int VERSION_WITH_SCHEMA = 5;

  /** One keyed batch. {@code baseSnapshot} is -1 when the index was read from an empty table. */
  record KeyedFiles(
      List<DataFile> data,
      List<DeleteFile> deletes,
      List<String> referenced,
      long writer,
      long baseSnapshot,
      Watermarks baseWatermarks,
      Watermarks baseWriters,
      long[] unseen,
      Optional<Schema> schema) {}

  private KeyedFilesCodec() {}

  /** Whether {@code version} is that of a keyed batch. */
  static boolean isKeyed(int version) {
    return version == VERSION || version == VERSION_WITH_SCHEMA;
  }

  /** The version of {@code files} as {@link #encode} writes it. */
  static int version(KeyedFiles files) {
    return files.schema().isPresent() ? VERSION_WITH_SCHEMA : VERSION;
  }

  static byte[] encode(KeyedFiles files, Map<Integer, PartitionSpec> specs) {
    ByteArrayOutputStream bytes =
        new ByteArrayOutputStream(512 * Math.max(1, files.data().size() + files.deletes().size()));
    try (JsonGenerator json = JsonUtil.factory().createGenerator(bytes)) {
      json.writeStartObject();
      json.writeArrayFieldStart("data");
      for (DataFile file : files.data()) {
        ContentFileParser.toJson(file, specs.get(file.specId()), json);
      }
      json.writeEndArray();
      json.writeArrayFieldStart("deletes");
      for (DeleteFile file : files.deletes()) {
        ContentFileParser.toJson(file, specs.get(file.specId()), json);
      }
      json.writeEndArray();
      json.writeArrayFieldStart("referenced");
      for (String path : files.referenced()) {
        json.writeString(path);
      }
      json.writeEndArray();
      json.writeNumberField("writer", files.writer());
      json.writeNumberField("base-snapshot", files.baseSnapshot());
      json.writeStringField("base-watermarks", files.baseWatermarks().encode());
      json.writeStringField("base-writers", files.baseWriters().encode());
      json.writeStringField("unseen-keys", UnseenKeys.encode(files.unseen()));
      if (files.schema().isPresent()) {
        CarriedSchema.write(json, files.schema().get());
      }
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot encode the files of a keyed batch", e);
    }
    return bytes.toByteArray();
  }

  static KeyedFiles decode(byte[] payload, Map<Integer, PartitionSpec> specs)
      throws InvalidDataFilesException {
    JsonNode root;
    try {
      root = JsonUtil.mapper().readTree(payload);
    } catch (IOException | RuntimeException e) {
      throw new InvalidDataFilesException("not JSON: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new InvalidDataFilesException("not a JSON object of a keyed batch");
    }
    List<DataFile> data = new ArrayList<>();
    for (ContentFile<?> file : files(root, "data", specs)) {
      if (!(file instanceof DataFile dataFile)) {
        throw new InvalidDataFilesException("a " + file.content() + " file among the data files");
      }
      data.add(dataFile);
    }
    List<DeleteFile> deletes = new ArrayList<>();
    for (ContentFile<?> file : files(root, "deletes", specs)) {
      if (!(file instanceof DeleteFile deleteFile)
          || deleteFile.content() != FileContent.POSITION_DELETES) {
        throw new InvalidDataFilesException(
            "a "
                + file.content()
                + " file among the position deletes (equality deletes are never"
                + " written)");
      }
      deletes.add(deleteFile);
    }
    JsonNode referenced = root.get("referenced");
    if (referenced == null || !referenced.isArray()) {
      throw new InvalidDataFilesException("no list of referenced data files");
    }
    List<String> paths = new ArrayList<>(referenced.size());
    for (JsonNode path : referenced) {
      if (!path.isTextual()) {
        throw new InvalidDataFilesException("a referenced data file that is not a path");
      }
      paths.add(path.asText());
    }
    JsonNode unseen = root.get("unseen-keys");
    if (unseen != null && !unseen.isTextual()) {
      throw new InvalidDataFilesException("unseen keys that are not text");
    }
    try {
      return new KeyedFiles(
          data,
          deletes,
          paths,
          number(root, "writer"),
          number(root, "base-snapshot"),
          Watermarks.decode(text(root, "base-watermarks")),
          Watermarks.decode(text(root, "base-writers")),
          unseen == null ? UnseenKeys.NONE : UnseenKeys.decode(unseen.asText()),
          CarriedSchema.read(root));
    } catch (IllegalArgumentException e) {
      throw new InvalidDataFilesException(e.getMessage());
    }
  }

  private static List<ContentFile<?>> files(
      JsonNode root, String field, Map<Integer, PartitionSpec> specs)
      throws InvalidDataFilesException {
    JsonNode array = root.get(field);
    if (array == null || !array.isArray()) {
      throw new InvalidDataFilesException("no list of " + field + " files");
    }
    List<ContentFile<?>> files = new ArrayList<>(array.size());
    for (JsonNode node : array) {
      JsonNode specId = node.get("spec-id");
      if (specId == null || !specId.canConvertToInt() || !specs.containsKey(specId.asInt())) {
        throw new InvalidDataFilesException(
            "a file names partition spec " + specId + ", which the table does not have");
      }
      try {
        files.add(ContentFileParser.fromJson(node, specs));
      } catch (RuntimeException e) {
        throw new InvalidDataFilesException("not a content file: " + e.getMessage());
      }
    }
    return files;
  }

  private static long number(JsonNode root, String field) throws InvalidDataFilesException {
    JsonNode node = root.get(field);
    if (node == null || !node.canConvertToLong()) {
      throw new InvalidDataFilesException("no number '" + field + "'");
    }
    return node.asLong();
  }

  private static String text(JsonNode root, String field) throws InvalidDataFilesException {
    JsonNode node = root.get(field);
    if (node == null || !node.isTextual()) {
      throw new InvalidDataFilesException("no text '" + field + "'");
    }
    return node.asText();
  }
}
