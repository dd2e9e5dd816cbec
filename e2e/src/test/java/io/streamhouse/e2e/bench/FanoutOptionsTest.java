package io.streamhouse.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The fan-out benchmark's command line: the catalog of our connector and its commit mode. */
class FanoutOptionsTest {
  @Test
  void withoutCatalogOptionsItIsTheJdbcCatalogWithPerTableCommits() {
    FanoutOptions o = FanoutOptions.parse(new String[] {"--records", "1000"});
    assertThat(o.catalog()).isEqualTo("jdbc");
    assertThat(o.atomic()).isFalse();
    assertThat(o.records()).isEqualTo(1000);
    assertThat(o.formats()).containsExactly("iceberg", "paimon");
  }

  @Test
  void atomicIsAFlagThatTheNextOptionFollows() {
    FanoutOptions o =
        FanoutOptions.parse(
            new String[] {
              "--catalog", "nessie", "--atomic", "--formats", "iceberg", "--tables", "20"
            });
    assertThat(o.catalog()).isEqualTo("nessie");
    assertThat(o.atomic()).isTrue();
    assertThat(o.formats()).containsExactly("iceberg");
    assertThat(o.tables()).isEqualTo("20");
  }

  @Test
  void atomicMayEndTheLineOrTakeTrueOrFalse() {
    assertThat(
            FanoutOptions.parse(
                    new String[] {"--formats", "iceberg", "--catalog", "nessie", "--atomic"})
                .atomic())
        .isTrue();
    FanoutOptions perTable =
        FanoutOptions.parse(
            new String[] {"--catalog", "nessie", "--atomic", "false", "--formats", "iceberg"});
    assertThat(perTable.atomic()).isFalse();
    assertThat(perTable.formats()).isEqualTo(List.of("iceberg"));
  }

  @Test
  void atomicNeedsNessieAndNessieNeedsIcebergOnly() {
    assertThatThrownBy(() -> FanoutOptions.parse(new String[] {"--formats", "iceberg", "--atomic"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--atomic needs --catalog nessie");
    assertThatThrownBy(() -> FanoutOptions.parse(new String[] {"--catalog", "nessie"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--formats iceberg");
    assertThatThrownBy(() -> FanoutOptions.parse(new String[] {"--catalog", "hive"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jdbc or nessie");
  }
}
