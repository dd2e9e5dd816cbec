package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.protocol.TableId;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class IcebergConvertersTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "customer", Types.StringType.get()));

  private final InMemoryCatalog catalog = new InMemoryCatalog();
  private final IcebergConverters converters = new IcebergConverters();

  @BeforeEach
  void setUp() {
    catalog.initialize("test", Map.of());
    catalog.createNamespace(Namespace.of("db"));
  }

  private Table create(String name, PartitionSpec spec) {
    return catalog.createTable(TableIdentifier.of("db", name), SCHEMA, spec);
  }

  private static TableId id(String name) {
    return new TableId("test", List.of("db"), name);
  }

  @Test
  void aTableKeepsItsConverterAcrossRoundsWhileItsSchemaStaysTheSame() {
    Table table = create("orders", PartitionSpec.unpartitioned());
    IcebergRecordConverter first = converters.forTable(id("orders"), table);
    table.updateProperties().set("k", "v").commit(); // a new metadata version, the same schema
    table.refresh();
    assertThat(converters.forTable(id("orders"), table)).isSameAs(first);
    assertThat(first.utf8Strings()).isTrue();

    table.updateSchema().addColumn("note", Types.StringType.get()).commit();
    table.refresh();
    IcebergRecordConverter evolved = converters.forTable(id("orders"), table);
    assertThat(evolved).isNotSameAs(first);
    assertThat(evolved.schema().findField("note")).isNotNull();
  }

  @Test
  void aPartitionOfAStringColumnTakesAConverterOfStrings() {
    Table table = create("orders", PartitionSpec.unpartitioned());
    IcebergRecordConverter utf8 = converters.forTable(id("orders"), table);
    table.updateSpec().addField("customer").commit();
    table.refresh();
    IcebergRecordConverter strings = converters.forTable(id("orders"), table);
    assertThat(strings).isNotSameAs(utf8);
    assertThat(strings.utf8Strings()).isFalse();
  }

  @Test
  void keepsAtMostTheBound() {
    Table table = create("orders", PartitionSpec.unpartitioned());
    for (int i = 0; i <= IcebergConverters.MAX_TABLES; i++) {
      assertThat(converters.forTable(id("t" + i), table).schema().sameSchema(SCHEMA)).isTrue();
    }
    assertThat(converters.size()).isEqualTo(IcebergConverters.MAX_TABLES);
  }
}
