package io.streamhouse.connect.table.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * A table's schema joined, field id by field id, with the schema a batch's files were written with
 * (a task's schema change in round-atomic mode, not yet committed). Parquet files name their
 * columns by field id, so the join keeps every id: a column both have must keep its name and kind,
 * and takes the wider type and the weaker nullability of the two; a column only the batch has must
 * be optional, with ids the table never gave out (above its last column id) and a name no sibling
 * has. Anything else, as when two tasks gave the same new id to different columns, is a {@link
 * Conflict}: the batch cannot be committed with the table's columns as they are.
 */
final class SchemaUnion {
  /** The joined schema and the table's new last column id. */
  record Joined(Schema schema, int lastColumnId) {}

  /** Why a batch's schema cannot join the table's. */
  static final class Conflict extends Exception {
    private static final long serialVersionUID = 1L;

    Conflict(String message) {
      super(message, null, false, false);
    }
  }

  private final Map<Integer, Types.NestedField> tableIds;
  private final int lastColumnId;

  private SchemaUnion(Schema table, int lastColumnId) {
    this.tableIds = TypeUtil.indexById(table.asStruct());
    this.lastColumnId = lastColumnId;
  }

  /**
   * {@code table} (whose last assigned column id is {@code lastColumnId}) joined with {@code
   * batch}; the table's identifier fields stay.
   *
   * @throws Conflict if a column of the batch cannot join
   */
  static Joined join(Schema table, int lastColumnId, Schema batch) throws Conflict {
    SchemaUnion union = new SchemaUnion(table, lastColumnId);
    Types.StructType joined = union.struct(table.asStruct(), batch.asStruct(), "");
    Schema schema;
    try {
      schema = new Schema(joined.fields(), table.identifierFieldIds());
    } catch (RuntimeException e) {
      throw new Conflict("the joined schema is not valid: " + e.getMessage());
    }
    return new Joined(schema, Math.max(lastColumnId, schema.highestFieldId()));
  }

  /** Whether {@code joined} changes {@code table}'s schema. */
  static boolean changes(Schema table, int lastColumnId, Joined joined) {
    return joined.lastColumnId() != lastColumnId || !joined.schema().sameSchema(table);
  }

  private Types.StructType struct(Types.StructType table, Types.StructType batch, String path)
      throws Conflict {
    List<Types.NestedField> fields = new ArrayList<>();
    for (Types.NestedField ours : table.fields()) {
      Types.NestedField theirs = batch.field(ours.fieldId());
      fields.add(theirs == null ? ours : field(ours, theirs, path));
    }
    for (Types.NestedField theirs : batch.fields()) {
      if (table.field(theirs.fieldId()) == null) {
        fields.add(added(table, theirs, path));
      }
    }
    return Types.StructType.of(fields);
  }

  /** A column both have: same name and kind, the wider type, optional if either is. */
  private Types.NestedField field(Types.NestedField ours, Types.NestedField theirs, String path)
      throws Conflict {
    String name = path + ours.name();
    if (!ours.name().equals(theirs.name())) {
      throw new Conflict(
          "field id " + ours.fieldId() + " is " + name + " in the table, " + theirs.name());
    }
    return Types.NestedField.from(ours)
        .ofType(type(ours.type(), theirs.type(), name))
        .isOptional(ours.isOptional() || theirs.isOptional())
        .build();
  }

  /** A column the batch adds: optional, ids never given out, a name of its own. */
  private Types.NestedField added(Types.StructType table, Types.NestedField theirs, String path)
      throws Conflict {
    String name = path + theirs.name();
    if (theirs.isRequired()) {
      throw new Conflict("new column " + name + " is required; added columns must be optional");
    }
    Types.NestedField sibling = table.field(theirs.name());
    if (sibling != null) {
      throw new Conflict(
          "column "
              + name
              + " has id "
              + sibling.fieldId()
              + " in the table and id "
              + theirs.fieldId()
              + " in the batch");
    }
    Set<Integer> ids = TypeUtil.indexById(Types.StructType.of(theirs)).keySet();
    for (int id : ids) {
      if (id <= lastColumnId || tableIds.containsKey(id)) {
        throw new Conflict(
            "new column "
                + name
                + " uses field id "
                + id
                + ", which the table gave out already (its last column id is "
                + lastColumnId
                + ")");
      }
    }
    return theirs;
  }

  private Type type(Type ours, Type theirs, String name) throws Conflict {
    if (ours.isPrimitiveType() && theirs.isPrimitiveType()) {
      if (ours.equals(theirs) || TypeUtil.isPromotionAllowed(theirs, ours.asPrimitiveType())) {
        return ours; // the files' narrower type reads as the table's
      }
      if (TypeUtil.isPromotionAllowed(ours, theirs.asPrimitiveType())) {
        return theirs; // the batch widened it
      }
      throw new Conflict(name + " is " + ours + " in the table and " + theirs + " in the batch");
    }
    if (ours.typeId() != theirs.typeId()) {
      throw new Conflict(name + " is " + ours + " in the table and " + theirs + " in the batch");
    }
    switch (ours.typeId()) {
      case STRUCT:
        return struct(ours.asStructType(), theirs.asStructType(), name + ".");
      case LIST:
        {
          Types.ListType a = ours.asListType();
          Types.ListType b = theirs.asListType();
          sameId(a.elementId(), b.elementId(), name + ".element");
          Type element = type(a.elementType(), b.elementType(), name + ".element");
          return a.isElementOptional() || b.isElementOptional()
              ? Types.ListType.ofOptional(a.elementId(), element)
              : Types.ListType.ofRequired(a.elementId(), element);
        }
      case MAP:
        {
          Types.MapType a = ours.asMapType();
          Types.MapType b = theirs.asMapType();
          sameId(a.keyId(), b.keyId(), name + ".key");
          sameId(a.valueId(), b.valueId(), name + ".value");
          Type key = type(a.keyType(), b.keyType(), name + ".key");
          Type value = type(a.valueType(), b.valueType(), name + ".value");
          return a.isValueOptional() || b.isValueOptional()
              ? Types.MapType.ofOptional(a.keyId(), a.valueId(), key, value)
              : Types.MapType.ofRequired(a.keyId(), a.valueId(), key, value);
        }
      default:
        throw new Conflict(name + " is " + ours + " in the table and " + theirs + " in the batch");
    }
  }

  private static void sameId(int ours, int theirs, String name) throws Conflict {
    if (ours != theirs) {
      throw new Conflict(name + " has field id " + ours + " in the table, " + theirs);
    }
  }
}
