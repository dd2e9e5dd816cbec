package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * A key hashes alike from a converted record and from the values a data file gives back, and across
 * the widenings schema evolution may apply to a key column.
 */
class KeyHashTest {
  @Test
  void widenedKeyColumnsHashAsBefore() {
    assertThat(new KeyHash(List.of(Types.IntegerType.get())).of(new Object[] {42}))
        .isEqualTo(new KeyHash(List.of(Types.LongType.get())).of(new Object[] {42L}));
    assertThat(new KeyHash(List.of(Types.FloatType.get())).of(new Object[] {1.5f}))
        .isEqualTo(new KeyHash(List.of(Types.DoubleType.get())).of(new Object[] {1.5d}));
    assertThat(
            new KeyHash(List.of(Types.DecimalType.of(9, 2)))
                .of(new Object[] {new BigDecimal("1.25")}))
        .isEqualTo(
            new KeyHash(List.of(Types.DecimalType.of(18, 2)))
                .of(new Object[] {new BigDecimal("1.25")}));
  }

  @Test
  void theFormsOfOneValueHashAlikeAndDifferentKeysDiffer() {
    KeyHash text = new KeyHash(List.of(Types.StringType.get(), Types.TimestampType.withZone()));
    OffsetDateTime at = OffsetDateTime.of(2026, 12, 2, 3, 0, 0, 0, ZoneOffset.UTC);
    assertThat(text.of(new Object[] {new StringBuilder("a"), at}))
        .isEqualTo(text.of(new Object[] {"a", at.withOffsetSameInstant(ZoneOffset.ofHours(2))}));
    assertThat(text.of(new Object[] {"a", at})).isNotEqualTo(text.of(new Object[] {"b", at}));
    KeyHash local = new KeyHash(List.of(Types.TimestampType.withoutZone()));
    assertThat(local.of(new Object[] {LocalDateTime.of(2026, 1, 1, 0, 0)}))
        .isNotEqualTo(local.of(new Object[] {LocalDateTime.of(2026, 1, 1, 0, 1)}));
    KeyHash binary = new KeyHash(List.of(Types.BinaryType.get()));
    assertThat(binary.of(new Object[] {ByteBuffer.wrap(new byte[] {1, 2})}))
        .isEqualTo(binary.of(new Object[] {new byte[] {1, 2}}));
    KeyHash two = new KeyHash(List.of(Types.StringType.get(), Types.StringType.get()));
    assertThat(two.of(new Object[] {"ab", "c"})).isNotEqualTo(two.of(new Object[] {"a", "bc"}));
  }
}
