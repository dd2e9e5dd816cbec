package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.avro.util.Utf8;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class RowSizesTest {
  private static final Schema SCHEMA =
      new Schema(Types.NestedField.optional(1, "s", Types.StringType.get()));

  /** A UTF-8 string costs its bytes (6 for "héllo"), which its char length (5) undercounts. */
  @Test
  void aUtf8StringCostsItsBytes() {
    assertThat(RowSizes.estimate(new Utf8("h\u00e9llo"))).isEqualTo(48 + 6);
    assertThat(RowSizes.estimate("hello")).isEqualTo(48 + 5);
  }

  private static Record row(int chars) {
    Record row = GenericRecord.create(SCHEMA);
    row.set(0, "x".repeat(chars));
    return row;
  }

  @Test
  void theFirstRowIsChargedItsOwnSizeThenTheMeanOfTheSamplesThenAMovingAverage() {
    RowSizes sizes = new RowSizes();
    long small = RowSizes.estimate(row(100));
    long large = RowSizes.estimate(row(900));
    assertThat(sizes.of(row(100))).isEqualTo(small);
    for (int i = 1; i < 32; i++) {
      assertThat(sizes.of(row(900))).as("sampled every 32nd row").isEqualTo(small);
    }
    assertThat(sizes.of(row(900))).isEqualTo((small + large) / 2);
    for (int i = 0; i < 32 * 200; i++) {
      sizes.of(row(900));
    }
    assertThat(sizes.of(row(900)))
        .as("the first sample weighs nothing any more (eighths of a byte are dropped)")
        .isBetween(large - 7, large);
  }
}
