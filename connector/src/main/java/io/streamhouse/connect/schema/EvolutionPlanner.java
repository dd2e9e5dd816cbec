package io.streamhouse.connect.schema;

import io.streamhouse.connect.schema.FieldType.Decimal;
import io.streamhouse.connect.schema.FieldType.Field;
import io.streamhouse.connect.schema.FieldType.Kind;
import io.streamhouse.connect.schema.FieldType.ListOf;
import io.streamhouse.connect.schema.FieldType.MapOf;
import io.streamhouse.connect.schema.FieldType.Primitive;
import io.streamhouse.connect.schema.FieldType.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Decides, without side effects, how a table must change to take records of a given schema. The
 * rules (docs/schema-evolution.md):
 *
 * <ul>
 *   <li>a field the table lacks becomes an optional column (top level or nested);
 *   <li>a wider type widens the column: int8 → int16 → int32 → int64, float32 → float64, decimal
 *       precision up at equal scale; a narrower or equal type fits as it is;
 *   <li>an optional field relaxes a required column;
 *   <li>never: narrowing a column, changing its type family, a decimal's scale, any change to a
 *       primary-key or partition column, or dropping a required column (a record without it);
 *   <li>names match exactly; a field that differs from a column only in case, or a new name that is
 *       empty, has a dot or a control character, is rejected.
 * </ul>
 *
 * {@link EvolutionMode#ADD_COLUMNS} only adds; {@link EvolutionMode#NONE} never plans a change
 * (values are checked one by one when written).
 */
public final class EvolutionPlanner {
  private EvolutionPlanner() {}

  public static EvolutionPlan plan(TableColumns table, Struct record, EvolutionMode mode) {
    if (mode == EvolutionMode.NONE) {
      return EvolutionPlan.of(List.of());
    }
    List<SchemaChange> changes = new ArrayList<>();
    try {
      struct(table, List.of(), table.columns(), record, mode, changes);
      return EvolutionPlan.of(changes);
    } catch (Rejected r) {
      return EvolutionPlan.rejected(r.field, r.getMessage());
    }
  }

  private static final class Rejected extends Exception {
    private static final long serialVersionUID = 1L;

    private final String field;

    Rejected(List<String> path, String reason) {
      super(reason, null, false, false);
      this.field = SchemaChange.dotted(path);
    }
  }

  private static void struct(
      TableColumns table,
      List<String> parent,
      Struct columns,
      Struct fields,
      EvolutionMode mode,
      List<SchemaChange> changes)
      throws Rejected {
    for (Field field : fields.fields()) {
      List<String> path = append(parent, field.name());
      Optional<Field> column = columns.field(field.name());
      if (column.isEmpty()) {
        Optional<Field> twin =
            columns.fields().stream()
                .filter(c -> c.name().equalsIgnoreCase(field.name()))
                .findFirst();
        if (twin.isPresent()) {
          throw new Rejected(
              path,
              "field '"
                  + SchemaChange.dotted(path)
                  + "' differs only in case from column '"
                  + twin.get().name()
                  + "'; column names are case-sensitive and must not collide ignoring case");
        }
        checkNewName(path, field.name());
        changes.add(new SchemaChange.AddColumn(path, field.type()));
        continue;
      }
      boolean topLevel = parent.isEmpty();
      String frozen =
          topLevel && table.keyColumns().contains(field.name())
              ? "primary key"
              : topLevel && table.partitionColumns().contains(field.name()) ? "partition" : null;
      type(table, path, column.get().type(), field.type(), mode, changes, frozen);
      if (field.optional() && !column.get().optional() && frozen == null) {
        // A key or partition value is checked record by record: a null one is rejected then.
        if (mode != EvolutionMode.ADD_AND_WIDEN) {
          throw new Rejected(
              path,
              "field '"
                  + SchemaChange.dotted(path)
                  + "' is optional but column is "
                  + "required, and schema-evolution="
                  + mode.configValue()
                  + " does not relax columns");
        }
        changes.add(new SchemaChange.MakeOptional(path));
      }
    }
    for (Field column : columns.fields()) {
      if (!column.optional() && fields.field(column.name()).isEmpty()) {
        List<String> path = append(parent, column.name());
        throw new Rejected(
            path,
            "the record has no field '"
                + SchemaChange.dotted(path)
                + "' for required column '"
                + SchemaChange.dotted(path)
                + "' (a required column cannot be dropped)");
      }
    }
  }

  private static void type(
      TableColumns table,
      List<String> path,
      FieldType column,
      FieldType field,
      EvolutionMode mode,
      List<SchemaChange> changes,
      String frozen)
      throws Rejected {
    if (column.equals(field) || fits(field, column)) {
      return;
    }
    if (column instanceof Struct c && field instanceof Struct f) {
      if (frozen != null) {
        throw new Rejected(
            path, frozen + " column '" + SchemaChange.dotted(path) + "' cannot change");
      }
      struct(table, path, c, f, mode, changes);
      return;
    }
    if (column instanceof ListOf c && field instanceof ListOf f) {
      if (!c.element().equals(f.element()) && !fits(f.element(), c.element())) {
        throw new Rejected(
            path,
            "list column '"
                + SchemaChange.dotted(path)
                + "' has elements of type "
                + c.element()
                + ", the record "
                + f.element()
                + "; list element types do not evolve");
      }
      return;
    }
    if (column instanceof MapOf c && field instanceof MapOf f) {
      boolean keys = c.key().equals(f.key()) || fits(f.key(), c.key());
      boolean values = c.value().equals(f.value()) || fits(f.value(), c.value());
      if (!keys || !values) {
        throw new Rejected(
            path,
            "map column '"
                + SchemaChange.dotted(path)
                + "' is "
                + c
                + ", the record "
                + f
                + "; map key and value types do not evolve");
      }
      return;
    }
    if (widens(column, field)) {
      if (frozen != null) {
        throw new Rejected(
            path,
            frozen
                + " column '"
                + SchemaChange.dotted(path)
                + "' cannot be widened from "
                + column
                + " to "
                + field);
      }
      if (mode != EvolutionMode.ADD_AND_WIDEN) {
        throw new Rejected(
            path,
            "field '"
                + SchemaChange.dotted(path)
                + "' is "
                + field
                + " but column is "
                + column
                + ", and schema-evolution="
                + mode.configValue()
                + " does not widen columns");
      }
      changes.add(new SchemaChange.WidenColumn(path, column, field));
      return;
    }
    throw new Rejected(
        path,
        "field '"
            + SchemaChange.dotted(path)
            + "' is "
            + field
            + " but column is "
            + column
            + ": only widening (int8 to int64, float to double, decimal precision) is allowed, never narrowing "
            + "or another type");
  }

  /**
   * True when values of type {@code field} can be written to a column of type {@code column} as is.
   */
  static boolean fits(FieldType field, FieldType column) {
    if (field instanceof Primitive f && column instanceof Primitive c) {
      return f.kind() == c.kind()
          || (isInteger(f.kind()) && isInteger(c.kind()) && f.kind().ordinal() < c.kind().ordinal())
          || (f.kind() == Kind.FLOAT32 && c.kind() == Kind.FLOAT64)
          // A JSON 12 where earlier records had 12.5: an integer value fits a double column.
          || (isInteger(f.kind()) && c.kind() == Kind.FLOAT64);
    }
    if (field instanceof Decimal f && column instanceof Decimal c) {
      return f.scale() == c.scale() && f.precision() <= c.precision();
    }
    return false;
  }

  /**
   * True when a column of type {@code column} may be widened to {@code field}: within the integers
   * or floats.
   */
  static boolean widens(FieldType column, FieldType field) {
    if (column instanceof Primitive c
        && field instanceof Primitive f
        && isInteger(c.kind()) != isInteger(f.kind())) {
      return false;
    }
    return fits(column, field) && !column.equals(field);
  }

  private static boolean isInteger(Kind kind) {
    return kind.ordinal() <= Kind.INT64.ordinal();
  }

  private static void checkNewName(List<String> path, String name) throws Rejected {
    if (name.isEmpty() || name.contains(".") || name.chars().anyMatch(Character::isISOControl)) {
      throw new Rejected(
          path,
          "field name '"
              + name
              + "' is not a valid column name (empty, a dot or a "
              + "control character)");
    }
  }

  private static List<String> append(List<String> parent, String name) {
    List<String> path = new ArrayList<>(parent);
    path.add(name);
    return List.copyOf(path);
  }
}
