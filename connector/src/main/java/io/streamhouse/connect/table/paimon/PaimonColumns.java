package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.schema.FieldType;
import io.streamhouse.connect.schema.FieldType.Kind;
import io.streamhouse.connect.schema.TableColumns;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.RowType;

/** Paimon row types in the evolution planner's terms, and the planner's types as Paimon types. */
final class PaimonColumns {
  private PaimonColumns() {}

  static TableColumns of(FileStoreTable table) {
    return new TableColumns(
        struct(table.rowType()),
        new HashSet<>(table.primaryKeys()),
        new HashSet<>(table.partitionKeys()));
  }

  private static FieldType.Struct struct(RowType row) {
    List<FieldType.Field> fields = new ArrayList<>();
    for (DataField f : row.getFields()) {
      fields.add(new FieldType.Field(f.name(), neutral(f.type()), f.type().isNullable()));
    }
    return new FieldType.Struct(fields);
  }

  static FieldType neutral(DataType type) {
    return switch (type.getTypeRoot()) {
      case TINYINT -> FieldType.of(Kind.INT8);
      case SMALLINT -> FieldType.of(Kind.INT16);
      case INTEGER -> FieldType.of(Kind.INT32);
      case BIGINT -> FieldType.of(Kind.INT64);
      case FLOAT -> FieldType.of(Kind.FLOAT32);
      case DOUBLE -> FieldType.of(Kind.FLOAT64);
      case BOOLEAN -> FieldType.of(Kind.BOOLEAN);
      case CHAR, VARCHAR -> FieldType.of(Kind.STRING);
      case BINARY, VARBINARY -> FieldType.of(Kind.BYTES);
      case DATE -> FieldType.of(Kind.DATE);
      case TIME_WITHOUT_TIME_ZONE -> FieldType.of(Kind.TIME);
      case TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE ->
          FieldType.of(Kind.TIMESTAMP);
      case DECIMAL ->
          new FieldType.Decimal(
              ((DecimalType) type).getPrecision(), ((DecimalType) type).getScale());
      case ARRAY -> new FieldType.ListOf(neutral(((ArrayType) type).getElementType()));
      case MAP ->
          new FieldType.MapOf(
              neutral(((MapType) type).getKeyType()), neutral(((MapType) type).getValueType()));
      case ROW -> struct((RowType) type);
      default ->
          throw new IllegalArgumentException(
              "Paimon type " + type + " has no counterpart in record schemas");
    };
  }

  /**
   * The Paimon type of a planner type; {@code keepRequired} keeps NOT NULL where the planner type
   * is required.
   */
  static DataType paimon(FieldType type, boolean keepRequired) {
    if (type instanceof FieldType.Decimal d) {
      return DataTypes.DECIMAL(d.precision(), d.scale());
    }
    if (type instanceof FieldType.ListOf l) {
      return DataTypes.ARRAY(paimon(l.element(), keepRequired));
    }
    if (type instanceof FieldType.MapOf m) {
      return DataTypes.MAP(
          paimon(m.key(), keepRequired).copy(false), paimon(m.value(), keepRequired));
    }
    if (type instanceof FieldType.Struct s) {
      List<DataField> fields = new ArrayList<>();
      for (FieldType.Field f : s.fields()) {
        DataType fieldType = paimon(f.type(), keepRequired);
        fields.add(
            new DataField(
                fields.size(),
                f.name(),
                keepRequired && !f.optional() ? fieldType.copy(false) : fieldType));
      }
      return new RowType(fields);
    }
    return switch (((FieldType.Primitive) type).kind()) {
      case INT8 -> DataTypes.TINYINT();
      case INT16 -> DataTypes.SMALLINT();
      case INT32 -> DataTypes.INT();
      case INT64 -> DataTypes.BIGINT();
      case FLOAT32 -> DataTypes.FLOAT();
      case FLOAT64 -> DataTypes.DOUBLE();
      case BOOLEAN -> DataTypes.BOOLEAN();
      case STRING -> DataTypes.STRING();
      case BYTES -> DataTypes.BYTES();
      case DATE -> DataTypes.DATE();
      case TIME -> DataTypes.TIME(3);
      case TIMESTAMP -> DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(3);
    };
  }
}
