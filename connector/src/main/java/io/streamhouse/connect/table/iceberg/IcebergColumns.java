package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.schema.FieldType;
import io.streamhouse.connect.schema.FieldType.Kind;
import io.streamhouse.connect.schema.TableColumns;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/** Iceberg schemas in the evolution planner's terms, and the planner's types as Iceberg types. */
final class IcebergColumns {
  private IcebergColumns() {}

  static TableColumns of(Table table) {
    Set<String> partitions = new HashSet<>();
    for (PartitionField f : table.spec().fields()) {
      partitions.add(table.schema().findColumnName(f.sourceId()));
    }
    Set<String> identifiers = table.schema().identifierFieldNames();
    return new TableColumns(struct(table.schema().asStruct()), identifiers, partitions);
  }

  private static FieldType.Struct struct(Types.StructType struct) {
    List<FieldType.Field> fields = new ArrayList<>();
    for (Types.NestedField f : struct.fields()) {
      fields.add(new FieldType.Field(f.name(), neutral(f.type()), f.isOptional()));
    }
    return new FieldType.Struct(fields);
  }

  static FieldType neutral(Type type) {
    return switch (type.typeId()) {
      case INTEGER -> FieldType.of(Kind.INT32);
      case LONG -> FieldType.of(Kind.INT64);
      case FLOAT -> FieldType.of(Kind.FLOAT32);
      case DOUBLE -> FieldType.of(Kind.FLOAT64);
      case BOOLEAN -> FieldType.of(Kind.BOOLEAN);
      case STRING, UUID -> FieldType.of(Kind.STRING);
      case BINARY, FIXED -> FieldType.of(Kind.BYTES);
      case DATE -> FieldType.of(Kind.DATE);
      case TIME -> FieldType.of(Kind.TIME);
      case TIMESTAMP, TIMESTAMP_NANO -> FieldType.of(Kind.TIMESTAMP);
      case DECIMAL ->
          new FieldType.Decimal(
              ((Types.DecimalType) type).precision(), ((Types.DecimalType) type).scale());
      case LIST -> new FieldType.ListOf(neutral(type.asListType().elementType()));
      case MAP ->
          new FieldType.MapOf(
              neutral(type.asMapType().keyType()), neutral(type.asMapType().valueType()));
      case STRUCT -> struct(type.asStructType());
      default ->
          throw new IllegalArgumentException(
              "Iceberg type " + type + " has no counterpart in record schemas");
    };
  }

  /** The schema of a new table for rows of {@code row}: required fields stay required. */
  static Schema schemaFor(FieldType.Struct row) {
    int[] ids = {1};
    return new Schema(((Types.StructType) iceberg(row, ids, true)).fields());
  }

  /**
   * The Iceberg type of a column added for {@code type}, every nested field optional; ids are
   * placeholders that Iceberg replaces when it adds the column.
   */
  static Type iceberg(FieldType type) {
    int[] ids = {1_000_000};
    return iceberg(type, ids, false);
  }

  private static Type iceberg(FieldType type, int[] ids, boolean keepRequired) {
    if (type instanceof FieldType.Decimal d) {
      return Types.DecimalType.of(d.precision(), d.scale());
    }
    if (type instanceof FieldType.ListOf l) {
      return Types.ListType.ofOptional(ids[0]++, iceberg(l.element(), ids, keepRequired));
    }
    if (type instanceof FieldType.MapOf m) {
      int keyId = ids[0]++;
      int valueId = ids[0]++;
      return Types.MapType.ofOptional(
          keyId,
          valueId,
          iceberg(m.key(), ids, keepRequired),
          iceberg(m.value(), ids, keepRequired));
    }
    if (type instanceof FieldType.Struct s) {
      List<Types.NestedField> fields = new ArrayList<>();
      for (FieldType.Field f : s.fields()) {
        int id = ids[0]++;
        Type fieldType = iceberg(f.type(), ids, keepRequired);
        fields.add(
            keepRequired && !f.optional()
                ? Types.NestedField.required(id, f.name(), fieldType)
                : Types.NestedField.optional(id, f.name(), fieldType));
      }
      return Types.StructType.of(fields);
    }
    return switch (((FieldType.Primitive) type).kind()) {
      case INT8, INT16, INT32 -> Types.IntegerType.get();
      case INT64 -> Types.LongType.get();
      case FLOAT32 -> Types.FloatType.get();
      case FLOAT64 -> Types.DoubleType.get();
      case BOOLEAN -> Types.BooleanType.get();
      case STRING -> Types.StringType.get();
      case BYTES -> Types.BinaryType.get();
      case DATE -> Types.DateType.get();
      case TIME -> Types.TimeType.get();
      case TIMESTAMP -> Types.TimestampType.withZone();
    };
  }
}
