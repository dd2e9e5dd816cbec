package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** Joining a batch's schema into the table's by field id: what joins and what is a conflict. */
class SchemaUnionTest {
  private static final Schema TABLE =
      new Schema(
          List.of(
              Types.NestedField.required(1, "id", Types.LongType.get()),
              Types.NestedField.required(2, "amount", Types.IntegerType.get()),
              Types.NestedField.optional(
                  3,
                  "address",
                  Types.StructType.of(
                      Types.NestedField.optional(4, "city", Types.StringType.get())))),
          Set.of(1));

  @Test
  void newOptionalColumnsKeepTheBatchsIdsAndTheTableKeepsItsIdentifier() throws Exception {
    Schema batch =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "amount", Types.IntegerType.get()),
            Types.NestedField.optional(
                3,
                "address",
                Types.StructType.of(
                    Types.NestedField.optional(4, "city", Types.StringType.get()),
                    Types.NestedField.optional(6, "zip", Types.StringType.get()))),
            Types.NestedField.optional(5, "note", Types.StringType.get()));

    SchemaUnion.Joined joined = SchemaUnion.join(TABLE, 4, batch);

    assertThat(joined.lastColumnId()).isEqualTo(6);
    assertThat(joined.schema().findField("note").fieldId()).isEqualTo(5);
    assertThat(joined.schema().findField("address.zip").fieldId()).isEqualTo(6);
    assertThat(joined.schema().identifierFieldIds()).containsExactly(1);
    assertThat(SchemaUnion.changes(TABLE, 4, joined)).isTrue();
    assertThat(SchemaUnion.changes(joined.schema(), 6, SchemaUnion.join(joined.schema(), 6, batch)))
        .as("joined twice")
        .isFalse();
  }

  @Test
  void aWiderTypeAndAnOptionalColumnWinAndANarrowerOneReadsAsTheTables() throws Exception {
    Schema widened =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "amount", Types.LongType.get()));
    Schema joined = SchemaUnion.join(TABLE, 4, widened).schema();
    assertThat(joined.findField("amount").type()).isEqualTo(Types.LongType.get());
    assertThat(joined.findField("amount").isOptional()).isTrue();

    Schema narrower = new Schema(Types.NestedField.required(2, "amount", Types.IntegerType.get()));
    Schema stays = SchemaUnion.join(joined, 4, narrower).schema();
    assertThat(stays.findField("amount").type()).isEqualTo(Types.LongType.get());
    assertThat(stays.findField("amount").isOptional()).isTrue();
  }

  @Test
  void theSameNewIdForAnotherColumnIsAConflict() throws Exception {
    Schema first = new Schema(Types.NestedField.optional(5, "alpha", Types.StringType.get()));
    Schema second = new Schema(Types.NestedField.optional(5, "beta", Types.StringType.get()));
    SchemaUnion.Joined joined = SchemaUnion.join(TABLE, 4, first);

    assertThatThrownBy(() -> SchemaUnion.join(joined.schema(), joined.lastColumnId(), second))
        .isInstanceOf(SchemaUnion.Conflict.class)
        .hasMessageContaining("field id 5 is alpha in the table, beta");
  }

  @Test
  void theSameNewColumnUnderAnotherIdIsAConflict() throws Exception {
    Schema first = new Schema(Types.NestedField.optional(5, "alpha", Types.StringType.get()));
    Schema second = new Schema(Types.NestedField.optional(6, "alpha", Types.StringType.get()));
    SchemaUnion.Joined joined = SchemaUnion.join(TABLE, 4, first);

    assertThatThrownBy(() -> SchemaUnion.join(joined.schema(), joined.lastColumnId(), second))
        .isInstanceOf(SchemaUnion.Conflict.class)
        .hasMessageContaining("column alpha has id 5 in the table and id 6 in the batch");
  }

  @Test
  void aNewColumnMayNotReuseAnIdTheTableGaveOutOrBeRequired() {
    Schema reused = new Schema(Types.NestedField.optional(3, "gone", Types.StringType.get()));
    Schema table = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    assertThatThrownBy(() -> SchemaUnion.join(table, 4, reused))
        .isInstanceOf(SchemaUnion.Conflict.class)
        .hasMessageContaining("uses field id 3, which the table gave out already");

    Schema required = new Schema(Types.NestedField.required(5, "must", Types.StringType.get()));
    assertThatThrownBy(() -> SchemaUnion.join(table, 4, required))
        .isInstanceOf(SchemaUnion.Conflict.class)
        .hasMessageContaining("new column must is required");
  }

  @Test
  void anotherKindOrTypeUnderTheSameIdIsAConflict() {
    Schema kind = new Schema(Types.NestedField.optional(3, "address", Types.StringType.get()));
    assertThatThrownBy(() -> SchemaUnion.join(TABLE, 4, kind))
        .isInstanceOf(SchemaUnion.Conflict.class)
        .hasMessageContaining("address is struct<");

    Schema type = new Schema(Types.NestedField.required(2, "amount", Types.StringType.get()));
    assertThatThrownBy(() -> SchemaUnion.join(TABLE, 4, type))
        .isInstanceOf(SchemaUnion.Conflict.class)
        .hasMessageContaining("amount is int in the table and string in the batch");
  }

  @Test
  void listsAndMapsJoinTheirElementsByIdAndOtherIdsConflict() throws Exception {
    Schema table =
        new Schema(
            Types.NestedField.optional(
                1,
                "tags",
                Types.ListType.ofRequired(
                    2,
                    Types.StructType.of(
                        Types.NestedField.optional(3, "name", Types.StringType.get())))),
            Types.NestedField.optional(
                4,
                "scores",
                Types.MapType.ofRequired(5, 6, Types.StringType.get(), Types.IntegerType.get())));
    Schema batch =
        new Schema(
            Types.NestedField.optional(
                1,
                "tags",
                Types.ListType.ofOptional(
                    2,
                    Types.StructType.of(
                        Types.NestedField.optional(3, "name", Types.StringType.get()),
                        Types.NestedField.optional(7, "weight", Types.DoubleType.get())))),
            Types.NestedField.optional(
                4,
                "scores",
                Types.MapType.ofOptional(5, 6, Types.StringType.get(), Types.LongType.get())));

    Schema joined = SchemaUnion.join(table, 6, batch).schema();

    assertThat(joined.findField("tags.element.weight").fieldId()).isEqualTo(7);
    assertThat(joined.findField("tags").type().asListType().isElementOptional()).isTrue();
    assertThat(joined.findField("scores").type().asMapType().valueType())
        .isEqualTo(Types.LongType.get());

    Schema otherElement =
        new Schema(
            Types.NestedField.optional(
                1, "tags", Types.ListType.ofRequired(8, Types.StringType.get())));
    assertThatThrownBy(() -> SchemaUnion.join(table, 6, otherElement))
        .isInstanceOf(SchemaUnion.Conflict.class)
        .hasMessageContaining("tags.element has field id 2 in the table, 8");
  }
}
