package io.streamhouse.connect.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.schema.EvolutionMode;
import io.streamhouse.connect.schema.FieldType;
import io.streamhouse.connect.schema.SchemaChange;
import io.streamhouse.connect.schema.TableColumns;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Schema evolution against a table others change too: planned again after a concurrent change. */
class SchemaEvolutionLoopTest {
  private static final TableId TABLE = new TableId("lake", List.of("db"), "orders");
  private static final FieldType.Field ID =
      new FieldType.Field("id", FieldType.of(FieldType.Kind.INT64), false);
  private static final FieldType.Field NOTE =
      new FieldType.Field("note", FieldType.of(FieldType.Kind.STRING), true);
  private static final FieldType.Struct RECORD = new FieldType.Struct(List.of(ID, NOTE));

  /** A table of {@code id} that takes the first {@code failures} changes as lost races. */
  private static final class Table {
    final List<List<SchemaChange>> applied = new ArrayList<>();
    int failures;
    boolean hasNote;

    Table(int failures) {
      this.failures = failures;
    }

    TableColumns columns() {
      return new TableColumns(
          new FieldType.Struct(hasNote ? List.of(ID, NOTE) : List.of(ID)), Set.of("id"), Set.of());
    }

    void apply(List<SchemaChange> changes) {
      applied.add(changes);
      if (failures-- > 0) {
        hasNote = failures == 0; // the last lost race: another task added the column
        throw new IllegalStateException("another schema update got in first");
      }
      hasNote = true;
    }
  }

  private static void evolve(Table table, FieldType.Struct record) throws Exception {
    SchemaEvolutionLoop.run(
        "sink", TABLE, table::columns, record, EvolutionMode.ADD_COLUMNS, table::apply);
  }

  @Test
  void aChangeThatMetAConcurrentOneIsPlannedAgainAndFindsNothingLeft() throws Exception {
    Table table = new Table(2);
    evolve(table, RECORD);
    assertThat(table.applied).hasSize(2);
    assertThat(table.hasNote).isTrue();
    evolve(table, RECORD);
    assertThat(table.applied).as("nothing left to change").hasSize(2);
  }

  @Test
  void aTableThatKeepsChangingFailsItAfterTheLimitNamingConnectorAndTable() {
    Table table = new Table(Integer.MAX_VALUE);
    assertThatThrownBy(() -> evolve(table, RECORD))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Connector sink: cannot change the schema of lake:db.orders after 10 attempts")
        .hasRootCauseMessage("another schema update got in first");
    assertThat(table.applied).hasSize(10);
  }

  @Test
  void aChangeTheTableCannotFollowIsTheRecordsErrorAndNeverApplied() {
    Table table = new Table(0);
    FieldType.Struct narrowed =
        new FieldType.Struct(
            List.of(new FieldType.Field("id", FieldType.of(FieldType.Kind.STRING), false)));
    assertThatThrownBy(() -> evolve(table, narrowed)).isInstanceOf(RecordConversionException.class);
    assertThat(table.applied).isEmpty();
  }
}
