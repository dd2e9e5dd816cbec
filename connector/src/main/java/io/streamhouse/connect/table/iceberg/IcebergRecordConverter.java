package io.streamhouse.connect.table.iceberg;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.streamhouse.connect.converter.api.DecodedStruct;
import io.streamhouse.connect.converter.api.Utf8Text;
import io.streamhouse.connect.decode.ValueCoercion;
import io.streamhouse.connect.decode.ValuePath;
import io.streamhouse.connect.errors.RecordConversionException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * A Connect value (a {@link Struct}, or a schemaless JSON map) to an Iceberg record of the table's
 * schema. The table schema decides: fields the table lacks are ignored, fields the value lacks are
 * null (an error for a required column), and values fit their columns by the policy both formats
 * share ({@link ValueCoercion}).
 *
 * <p>A struct a converter decoded ({@link DecodedStruct}, as {@code FastJsonConverter} makes them)
 * is read as decoded, without its Connect {@code Struct}; with {@code utf8Strings} its UTF-8
 * strings ({@link Utf8Text}) go into the record as the bytes Parquet writes ({@link Utf8}), not as
 * {@code String}s.
 */
public final class IcebergRecordConverter {
  /** Layouts kept per struct type. */
  private static final int MAX_LAYOUTS = 64;

  private final Schema schema;
  private final boolean utf8Strings;

  /** The schema as a tree of nodes, made once: the conversion looks nothing up by type. */
  private final Node root;

  /** Where in the value the conversion is, named only by errors. */
  private final ValuePath path = new ValuePath();

  private final UtcDateTimes utcDateTimes = new UtcDateTimes();

  /**
   * A type of the schema, with what converting its values needs: for a struct an empty record to
   * copy (cheaper than creating one by type) and, per Connect schema of its values (by identity:
   * converters hand out the same schema object for every record of a schema), the source field of
   * each column; the nodes of its fields, list element, map key and value. Made for the whole
   * schema up front, once per converter, instead of per value.
   */
  private static final class Node {
    final Type type;
    final Type.TypeID typeId;
    final List<Types.NestedField> fields;
    final Node[] fieldNodes;
    final GenericRecord template;
    final Node element;
    final Node key;
    final Node value;

    /** The layout of the Connect schema seen last. */
    org.apache.kafka.connect.data.Schema lastSchema;

    Field[] lastSources;

    /**
     * The layouts of the schemas seen, at most {@code MAX_LAYOUTS} (a converter may make a new
     * schema object per record), by identity (weak keys compare with {@code ==}); made on first
     * use, as many struct types never see a value.
     */
    private Cache<org.apache.kafka.connect.data.Schema, Field[]> layouts;

    Node(Type type) {
      this.type = type;
      this.typeId = type.typeId();
      if (type.isStructType()) {
        fields = type.asStructType().fields();
        fieldNodes = fields.stream().map(f -> new Node(f.type())).toArray(Node[]::new);
        template = GenericRecord.create(type.asStructType());
      } else {
        fields = List.of();
        fieldNodes = new Node[0];
        template = null;
      }
      element = type.isListType() ? new Node(type.asListType().elementType()) : null;
      key = type.isMapType() ? new Node(type.asMapType().keyType()) : null;
      value = type.isMapType() ? new Node(type.asMapType().valueType()) : null;
    }

    /**
     * Per column, the field of {@code valueSchema} with its name (null: none), kept per schema:
     * looking each name up per record was about 3 % of a task thread's time in a profile.
     */
    Field[] sources(org.apache.kafka.connect.data.Schema valueSchema) {
      if (valueSchema == lastSchema) {
        return lastSources;
      }
      return lookUp(valueSchema);
    }

    private Field[] lookUp(org.apache.kafka.connect.data.Schema valueSchema) {
      if (layouts == null) {
        layouts =
            Caffeine.newBuilder()
                .weakKeys()
                .maximumSize(MAX_LAYOUTS)
                .executor(Runnable::run) // evicts on this thread, not a pool's
                .build();
      }
      Field[] sources = layouts.getIfPresent(valueSchema);
      if (sources == null) {
        sources = new Field[fields.size()];
        for (int i = 0; i < sources.length; i++) {
          sources[i] = valueSchema.field(fields.get(i).name());
        }
        layouts.put(valueSchema, sources);
      }
      lastSchema = valueSchema;
      lastSources = sources;
      return sources;
    }
  }

  public IcebergRecordConverter(Schema schema) {
    this(schema, false);
  }

  /**
   * {@code utf8Strings}: {@link Utf8Text} strings of {@link DecodedStruct}s go into records as
   * {@link Utf8} (the writer of an append table with no partition of a string column, whose strings
   * only Parquet reads); otherwise every string is a {@code String}, as partition keys and key
   * indexes compare them.
   */
  public IcebergRecordConverter(Schema schema, boolean utf8Strings) {
    this.schema = schema;
    this.utf8Strings = utf8Strings;
    this.root = new Node(schema.asStruct());
  }

  /** The schema this converter fits values to. */
  public Schema schema() {
    return schema;
  }

  /** Whether {@link Utf8Text} strings go into records as UTF-8 bytes. */
  public boolean utf8Strings() {
    return utf8Strings;
  }

  public Record convert(Object value) throws RecordConversionException {
    path.reset();
    if (value == null) {
      throw new RecordConversionException("<value>", "the record value is null");
    }
    return struct(root, value);
  }

  /**
   * The value of the top-level column at {@code position} for {@code value} (a struct, a JSON
   * object, a scalar), fitted to the column's type as a record field would be.
   */
  public Object column(int position, Object value) throws RecordConversionException {
    path.reset();
    return field(root.fields.get(position), root.fieldNodes[position], value);
  }

  private Record struct(Node node, Object value) throws RecordConversionException {
    GenericRecord record = node.template.copy();
    List<Types.NestedField> fields = node.fields;
    Node[] nodes = node.fieldNodes;
    if (value instanceof DecodedStruct decoded) { // before Struct: it may be one too
      Field[] sources = node.sources(decoded.schema());
      for (int i = 0; i < nodes.length; i++) {
        Object fieldValue = sources[i] == null ? null : decoded.decoded(sources[i]);
        record.set(i, field(fields.get(i), nodes[i], fieldValue));
      }
    } else if (value instanceof Struct struct) {
      Field[] sources = node.sources(struct.schema());
      for (int i = 0; i < nodes.length; i++) {
        Object fieldValue = sources[i] == null ? null : struct.get(sources[i]);
        record.set(i, field(fields.get(i), nodes[i], fieldValue));
      }
    } else if (value instanceof Map<?, ?> map) {
      for (int i = 0; i < nodes.length; i++) {
        Types.NestedField field = fields.get(i);
        record.set(i, field(field, nodes[i], map.get(field.name())));
      }
    } else {
      throw new RecordConversionException(
          path.toString(),
          "expected a struct or a JSON object, got " + value.getClass().getSimpleName());
    }
    return record;
  }

  private Object field(Types.NestedField field, Node node, Object value)
      throws RecordConversionException {
    if (value == null) {
      if (field.isRequired()) {
        path.enter(field.name());
        String name = path.toString();
        throw new RecordConversionException(
            name, "required column '" + name + "' is missing or null");
      }
      return null;
    }
    path.enter(field.name());
    Object converted = value(node, value);
    path.leave();
    return converted;
  }

  private Object value(Node node, Object value) throws RecordConversionException {
    Type type = node.type;
    if (value instanceof Utf8Text text) {
      if (node.typeId == Type.TypeID.STRING) {
        return utf8Strings ? new Utf8(text.utf8()) : text.toString();
      }
      value = text.toString(); // fitted to the column as the String would be
    }
    return switch (node.typeId) {
      case BOOLEAN -> ValueCoercion.toBoolean(value, path, type);
      case INTEGER ->
          (int) ValueCoercion.toLong(value, Integer.MIN_VALUE, Integer.MAX_VALUE, path, type);
      case LONG -> ValueCoercion.toLong(value, Long.MIN_VALUE, Long.MAX_VALUE, path, type);
      case FLOAT -> (float) ValueCoercion.toDouble(value, path, type);
      case DOUBLE -> ValueCoercion.toDouble(value, path, type);
      case DECIMAL -> {
        Types.DecimalType decimal = (Types.DecimalType) type;
        yield ValueCoercion.toDecimal(value, decimal.precision(), decimal.scale(), path, type);
      }
      case STRING -> ValueCoercion.toText(value, path, type);
      case BINARY, FIXED -> ByteBuffer.wrap(ValueCoercion.toBytes(value, path, type));
      case DATE -> ValueCoercion.toDate(value, path, type);
      case TIME -> ValueCoercion.toTime(value, path, type);
      case TIMESTAMP ->
          timestamp((Types.TimestampType) type, ValueCoercion.toInstant(value, path, type));
      case STRUCT -> struct(node, value);
      case LIST -> list(node, value);
      case MAP -> map(node, value);
      default ->
          throw new RecordConversionException(
              path.toString(), "column type " + type + " is not supported");
    };
  }

  private Object timestamp(Types.TimestampType type, Instant instant) {
    // Not Instant.atOffset: it looks up the offset's ZoneRules, a new object per call.
    LocalDateTime local = utcDateTimes.of(instant);
    return type.shouldAdjustToUTC() ? OffsetDateTime.of(local, ZoneOffset.UTC) : local;
  }

  private List<Object> list(Node node, Object value) throws RecordConversionException {
    Types.ListType type = node.type.asListType();
    if (!(value instanceof List<?> list)) {
      throw ValueCoercion.misfit(value, path, type, null);
    }
    List<Object> result = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      Object element = list.get(i);
      if (element == null) {
        if (type.isElementRequired()) {
          String name = path.toString();
          throw new RecordConversionException(
              name,
              "list '" + name + "' has a null element at " + i + " but its elements are required");
        }
        result.add(null);
      } else {
        path.enterElement(i);
        result.add(value(node.element, element));
        path.leave();
      }
    }
    return result;
  }

  private Map<Object, Object> map(Node node, Object value) throws RecordConversionException {
    Types.MapType type = node.type.asMapType();
    if (!(value instanceof Map<?, ?> map)) {
      throw ValueCoercion.misfit(value, path, type, null);
    }
    Map<Object, Object> result = new HashMap<>(map.size() * 2);
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (e.getKey() == null) {
        String name = path.toString();
        throw new RecordConversionException(name, "map '" + name + "' has a null key");
      }
      path.enter("key");
      Object key = value(node.key, e.getKey());
      path.leave();
      Object v = null;
      if (e.getValue() != null) {
        path.enter("value");
        v = value(node.value, e.getValue());
        path.leave();
      }
      if (v == null && type.isValueRequired()) {
        String name = path.toString();
        throw new RecordConversionException(
            name, "map '" + name + "' has a null value but values are required");
      }
      result.put(key, v);
    }
    return result;
  }
}
