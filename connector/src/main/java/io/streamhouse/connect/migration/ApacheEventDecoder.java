package io.streamhouse.connect.migration;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.iceberg.avro.GenericAvroReader;
import org.apache.iceberg.connect.events.Event;

/**
 * Reads one event of the Apache Iceberg sink's control topic (the format of {@code
 * org.apache.iceberg.connect.events.AvroUtil}: two magic bytes, the writer's Avro schema as a
 * length-prefixed string, the Avro datum) as untrusted input. The events library would let the
 * embedded schema name any class to instantiate and would allocate whatever lengths the datum
 * declares; here the schema may name only the events' own classes (and unnamed structs), must not
 * recurse or nest deeper than {@value #MAX_DEPTH}, and the datum is read with {@link
 * BoundedAvroDecoder}. No Java deserialization is involved anywhere.
 */
final class ApacheEventDecoder {
  /** The largest event accepted; Kafka's default limit is 1 MiB. */
  static final int MAX_EVENT_BYTES = 16 << 20;

  static final int MAX_DEPTH = 32;

  private static final byte[] MAGIC = {(byte) 0xC2, (byte) 0x01};

  private static final String EVENTS = "org.apache.iceberg.connect.events.";

  /** The classes a record of the embedded schema may name, as the events library writes them. */
  private static final Set<String> CLASSES =
      Set.of(
          EVENTS + "Event",
          EVENTS + "StartCommit",
          EVENTS + "DataWritten",
          EVENTS + "DataComplete",
          EVENTS + "CommitToTable",
          EVENTS + "CommitComplete",
          EVENTS + "TableReference",
          EVENTS + "TopicPartitionOffset",
          "org.apache.iceberg.PartitionData",
          "org.apache.iceberg.GenericDataFile",
          "org.apache.iceberg.GenericDeleteFile");

  /** Why an event was refused. */
  static final class InvalidEventException extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidEventException(String message) {
      super(message);
    }

    InvalidEventException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  static {
    // Iceberg's Avro logical type "map" (maps with non-string keys, as in a data file's metrics) is
    // registered by AvroEncoderUtil's initializer; without it those maps read as lists.
    try {
      Class.forName(
          "org.apache.iceberg.avro.AvroEncoderUtil",
          true,
          ApacheEventDecoder.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private ApacheEventDecoder() {}

  static Event decode(byte[] bytes) throws InvalidEventException {
    if (bytes == null) {
      throw new InvalidEventException("no value");
    }
    if (bytes.length > MAX_EVENT_BYTES) {
      throw new InvalidEventException(
          "event of " + bytes.length + " bytes exceeds " + MAX_EVENT_BYTES);
    }
    if (bytes.length < 4 || bytes[0] != MAGIC[0] || bytes[1] != MAGIC[1]) {
      throw new InvalidEventException("no Iceberg Avro header");
    }
    Schema schema;
    int datumStart;
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 2, bytes.length));
      String json = in.readUTF(); // at most 65535 bytes, checked against what is there
      datumStart = bytes.length - in.available();
      schema = new Schema.Parser().parse(json);
    } catch (IOException | RuntimeException e) {
      throw new InvalidEventException("unreadable schema: " + e, e);
    }
    check(schema, new ArrayDeque<>(), 0);
    if (!schema.getFullName().equals(EVENTS + "Event")) {
      throw new InvalidEventException("the schema is not an event's: " + schema.getFullName());
    }
    try {
      GenericAvroReader<Object> reader = GenericAvroReader.create(schema);
      reader.setClassLoader(ApacheEventDecoder.class.getClassLoader());
      reader.setSchema(schema); // builds the value readers, with the class loader above
      BoundedAvroDecoder decoder = new BoundedAvroDecoder(bytes, datumStart);
      Object event = reader.read(null, decoder);
      if (decoder.remaining() != 0) {
        throw new InvalidEventException(decoder.remaining() + " bytes after the event");
      }
      if (!(event instanceof Event e) || e.payload() == null || e.groupId() == null) {
        throw new InvalidEventException("not an event with a payload and a group id");
      }
      return e;
    } catch (IOException | RuntimeException e) {
      throw new InvalidEventException("unreadable event: " + e, e);
    }
  }

  private static void check(Schema schema, Deque<String> path, int depth)
      throws InvalidEventException {
    if (depth > MAX_DEPTH) {
      throw new InvalidEventException("schema nests deeper than " + MAX_DEPTH);
    }
    switch (schema.getType()) {
      case RECORD -> {
        String name = schema.getFullName();
        if (name.indexOf('.') >= 0 && !CLASSES.contains(name)) {
          throw new InvalidEventException("schema names a foreign class " + name);
        }
        if (path.contains(name)) {
          throw new InvalidEventException("schema is recursive at " + name);
        }
        path.push(name);
        for (Schema.Field field : schema.getFields()) {
          check(field.schema(), path, depth + 1);
        }
        path.pop();
      }
      case ARRAY -> {
        if (schema.getElementType().getType() == Schema.Type.NULL) {
          throw new InvalidEventException("schema has an array of nulls");
        }
        check(schema.getElementType(), path, depth + 1);
      }
      case MAP -> check(schema.getValueType(), path, depth + 1);
      case UNION -> {
        for (Schema option : schema.getTypes()) {
          check(option, path, depth + 1);
        }
      }
      default -> {
        // primitives, enums and fixed types carry no class
      }
    }
  }
}
