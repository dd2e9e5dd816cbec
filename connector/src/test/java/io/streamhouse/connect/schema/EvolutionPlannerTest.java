package io.streamhouse.connect.schema;

import static io.streamhouse.connect.schema.EvolutionMode.ADD_AND_WIDEN;
import static io.streamhouse.connect.schema.EvolutionMode.ADD_COLUMNS;
import static io.streamhouse.connect.schema.EvolutionMode.NONE;
import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.schema.FieldType.Decimal;
import io.streamhouse.connect.schema.FieldType.Field;
import io.streamhouse.connect.schema.FieldType.Kind;
import io.streamhouse.connect.schema.FieldType.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every rule of the evolution planner, the allowed way and the forbidden way. */
class EvolutionPlannerTest {
  static final FieldType INT8 = FieldType.of(Kind.INT8);
  static final FieldType INT16 = FieldType.of(Kind.INT16);
  static final FieldType INT32 = FieldType.of(Kind.INT32);
  static final FieldType INT64 = FieldType.of(Kind.INT64);
  static final FieldType FLOAT32 = FieldType.of(Kind.FLOAT32);
  static final FieldType FLOAT64 = FieldType.of(Kind.FLOAT64);
  static final FieldType STRING = FieldType.of(Kind.STRING);

  static Field required(String name, FieldType type) {
    return new Field(name, type, false);
  }

  static Field optional(String name, FieldType type) {
    return new Field(name, type, true);
  }

  static Struct struct(Field... fields) {
    return new Struct(List.of(fields));
  }

  /** A table (id key, day partition) with the given columns after id and day. */
  static TableColumns table(Field... more) {
    List<Field> columns = new ArrayList<>(List.of(required("id", INT64), required("day", STRING)));
    columns.addAll(List.of(more));
    return new TableColumns(new Struct(columns), Set.of("id"), Set.of("day"));
  }

  /** A record with id and day plus the given fields. */
  static Struct record(Field... more) {
    List<Field> fields = new ArrayList<>(List.of(required("id", INT64), required("day", STRING)));
    fields.addAll(List.of(more));
    return new Struct(fields);
  }

  static EvolutionPlan plan(TableColumns table, Struct record) {
    return EvolutionPlanner.plan(table, record, ADD_AND_WIDEN);
  }

  @Test
  void theSameSchemaChangesNothing() {
    assertThat(plan(table(optional("name", STRING)), record(optional("name", STRING))).isEmpty())
        .isTrue();
  }

  @Test
  void aNewTopLevelFieldBecomesAnOptionalColumnRequiredOrNot() {
    EvolutionPlan plan = plan(table(), record(optional("email", STRING), required("age", INT32)));
    assertThat(plan.changes())
        .containsExactly(
            new SchemaChange.AddColumn(List.of("email"), STRING),
            new SchemaChange.AddColumn(List.of("age"), INT32));
  }

  @Test
  void aNewNestedFieldBecomesANestedColumn() {
    TableColumns table = table(optional("address", struct(optional("city", STRING))));
    EvolutionPlan plan =
        plan(
            table,
            record(optional("address", struct(optional("city", STRING), optional("zip", STRING)))));
    assertThat(plan.changes())
        .containsExactly(new SchemaChange.AddColumn(List.of("address", "zip"), STRING));
  }

  @ParameterizedTest(name = "{0} column, {1} field")
  @CsvSource({"INT8,INT16", "INT16,INT32", "INT32,INT64", "INT8,INT64", "FLOAT32,FLOAT64"})
  void aWiderNumberWidensTheColumnAndANarrowerOneFitsAsItIs(Kind column, Kind field) {
    EvolutionPlan widen =
        plan(
            table(required("n", FieldType.of(column))), record(required("n", FieldType.of(field))));
    assertThat(widen.changes())
        .containsExactly(
            new SchemaChange.WidenColumn(List.of("n"), FieldType.of(column), FieldType.of(field)));
    // The other way round: the column stays wider, never narrowed.
    assertThat(
            plan(
                    table(required("n", FieldType.of(field))),
                    record(required("n", FieldType.of(column))))
                .isEmpty())
        .isTrue();
  }

  @Test
  void decimalPrecisionGoesUpAtEqualScaleOnly() {
    assertThat(
            plan(
                    table(required("d", new Decimal(10, 2))),
                    record(required("d", new Decimal(12, 2))))
                .changes())
        .containsExactly(
            new SchemaChange.WidenColumn(List.of("d"), new Decimal(10, 2), new Decimal(12, 2)));
    assertThat(
            plan(
                    table(required("d", new Decimal(12, 2))),
                    record(required("d", new Decimal(10, 2))))
                .isEmpty())
        .isTrue();
    EvolutionPlan scale =
        plan(table(required("d", new Decimal(10, 2))), record(required("d", new Decimal(10, 3))));
    assertThat(scale.rejection()).get().extracting(EvolutionPlan.Rejection::field).isEqualTo("d");
  }

  @Test
  void anOptionalFieldRelaxesARequiredColumnButNotTheOtherWay() {
    assertThat(plan(table(required("name", STRING)), record(optional("name", STRING))).changes())
        .containsExactly(new SchemaChange.MakeOptional(List.of("name")));
    assertThat(plan(table(optional("name", STRING)), record(required("name", STRING))).isEmpty())
        .isTrue();
  }

  @ParameterizedTest(name = "{0} column, {1} field")
  @CsvSource({
    "INT32,STRING",
    "STRING,INT32",
    "FLOAT64,INT32X",
    "INT64,BOOLEAN",
    "DATE,INT32",
    "TIMESTAMP,INT64",
    "FLOAT32,INT32",
    "INT64,FLOAT64"
  })
  void anotherTypeFamilyIsRejectedAndNamesTheField(String column, String field) {
    if (field.endsWith("X")) { // an integer fits a double column: JSON writes 12 after 12.5
      assertThat(
              plan(
                      table(required("v", FieldType.of(Kind.valueOf(column)))),
                      record(
                          required(
                              "v",
                              FieldType.of(Kind.valueOf(field.substring(0, field.length() - 1))))))
                  .isEmpty())
          .isTrue();
      return;
    }
    EvolutionPlan plan =
        plan(
            table(required("v", FieldType.of(Kind.valueOf(column)))),
            record(required("v", FieldType.of(Kind.valueOf(field)))));
    assertThat(plan.rejection())
        .get()
        .satisfies(
            r -> {
              assertThat(r.field()).isEqualTo("v");
              assertThat(r.reason()).contains("only widening");
            });
  }

  @Test
  void keyAndPartitionColumnsNeverChange() {
    TableColumns table =
        new TableColumns(
            struct(required("id", INT32), required("day", INT32)), Set.of("id"), Set.of("day"));
    assertThat(plan(table, struct(required("id", INT64), required("day", INT32))).rejection())
        .get()
        .satisfies(
            r -> assertThat(r.reason()).startsWith("primary key column 'id' cannot be widened"));
    assertThat(plan(table, struct(required("id", INT32), required("day", INT64))).rejection())
        .get()
        .satisfies(
            r -> assertThat(r.reason()).startsWith("partition column 'day' cannot be widened"));
    assertThat(plan(table, struct(required("id", STRING), required("day", INT32))).isRejected())
        .isTrue();
    // A key declared optional by the producer changes nothing: each value is checked when written.
    assertThat(plan(table, struct(optional("id", INT32), optional("day", INT32))).isEmpty())
        .isTrue();
  }

  @Test
  void aRecordWithoutARequiredColumnIsRejectedAndWithoutAnOptionalOneIsNot() {
    EvolutionPlan dropped = plan(table(required("score", INT32)), record());
    assertThat(dropped.rejection())
        .get()
        .satisfies(
            r -> {
              assertThat(r.field()).isEqualTo("score");
              assertThat(r.reason()).contains("cannot be dropped");
            });
    assertThat(plan(table(optional("note", STRING)), record()).isEmpty()).isTrue();
  }

  @Test
  void namesAreCaseSensitiveAndMustBeValidColumnNames() {
    assertThat(
            plan(table(optional("email", STRING)), record(optional("Email", STRING))).rejection())
        .get()
        .satisfies(
            r -> assertThat(r.reason()).contains("differs only in case from column 'email'"));
    assertThat(plan(table(), record(optional("a.b", STRING))).rejection())
        .get()
        .satisfies(r -> assertThat(r.reason()).contains("not a valid column name"));
  }

  @Test
  void listElementsAndMapValuesDoNotEvolve() {
    assertThat(
            plan(
                    table(optional("tags", new FieldType.ListOf(STRING))),
                    record(optional("tags", new FieldType.ListOf(INT32))))
                .isRejected())
        .isTrue();
    assertThat(
            plan(
                    table(optional("m", new FieldType.MapOf(STRING, INT64))),
                    record(optional("m", new FieldType.MapOf(STRING, INT32))))
                .isEmpty())
        .isTrue();
  }

  @Test
  void addColumnsOnlyAddsAndNoneNeverChangesAnything() {
    assertThat(
            EvolutionPlanner.plan(table(), record(optional("email", STRING)), ADD_COLUMNS)
                .changes())
        .hasSize(1);
    assertThat(
            EvolutionPlanner.plan(
                    table(required("n", INT32)), record(required("n", INT64)), ADD_COLUMNS)
                .rejection())
        .get()
        .satisfies(
            r -> assertThat(r.reason()).contains("schema-evolution=add-columns does not widen"));
    assertThat(
            EvolutionPlanner.plan(
                    table(required("n", INT32)), record(optional("n", INT32)), ADD_COLUMNS)
                .isRejected())
        .isTrue();
    assertThat(
            EvolutionPlanner.plan(
                    table(required("n", INT32)),
                    record(optional("n", STRING), optional("x", INT8)),
                    NONE)
                .isEmpty())
        .isTrue();
  }
}
