package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.Test;

class RowSizesTest {
  /** A UTF-8 string costs its bytes (6 for "héllo"), which its char length (5) undercounts. */
  @Test
  void aUtf8StringCostsItsBytes() {
    assertThat(RowSizes.estimate(new Utf8("h\u00e9llo"))).isEqualTo(48 + 6);
    assertThat(RowSizes.estimate("hello")).isEqualTo(48 + 5);
  }
}
