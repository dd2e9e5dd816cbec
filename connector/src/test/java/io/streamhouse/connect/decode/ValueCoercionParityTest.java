package io.streamhouse.connect.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.table.iceberg.IcebergRecordConverter;
import io.streamhouse.connect.table.paimon.PaimonRowConverter;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every case runs through both converters, each with a one-column table of the column type: a value
 * is accepted by both, as the same value, or rejected by both, with the same words.
 */
class ValueCoercionParityTest {
  /** A rejected case. */
  private static final Object REJECT =
      new Object() {
        @Override
        public String toString() {
          return "REJECT";
        }
      };

  enum Column {
    INT(Types.IntegerType.get(), DataTypes.INT()),
    BIGINT(Types.LongType.get(), DataTypes.BIGINT()),
    FLOAT(Types.FloatType.get(), DataTypes.FLOAT()),
    DOUBLE(Types.DoubleType.get(), DataTypes.DOUBLE()),
    DECIMAL(Types.DecimalType.of(10, 2), DataTypes.DECIMAL(10, 2)),
    STRING(Types.StringType.get(), DataTypes.STRING()),
    BOOLEAN(Types.BooleanType.get(), DataTypes.BOOLEAN()),
    BYTES(Types.BinaryType.get(), DataTypes.BYTES()),
    DATE(Types.DateType.get(), DataTypes.DATE()),
    TIME(Types.TimeType.get(), DataTypes.TIME(3)),
    TIMESTAMP(Types.TimestampType.withoutZone(), DataTypes.TIMESTAMP(6)),
    TIMESTAMP_TZ(Types.TimestampType.withZone(), DataTypes.TIMESTAMP_WITH_LOCAL_TIME_ZONE(6));

    final Type iceberg;
    final DataType paimon;

    Column(Type iceberg, DataType paimon) {
      this.iceberg = iceberg;
      this.paimon = paimon;
    }
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(Column.BIGINT, 28638L, 28638L),
        Arguments.of(Column.BIGINT, "28638", 28638L),
        Arguments.of(Column.BIGINT, "-9223372036854775808", Long.MIN_VALUE),
        Arguments.of(Column.BIGINT, "9223372036854775808", REJECT),
        Arguments.of(Column.BIGINT, "28638x", REJECT),
        Arguments.of(Column.BIGINT, " 5", REJECT),
        Arguments.of(Column.BIGINT, 5.0d, 5L),
        Arguments.of(Column.BIGINT, 5.5d, REJECT),
        Arguments.of(Column.BIGINT, Double.NaN, REJECT),
        Arguments.of(Column.BIGINT, new BigDecimal("7"), 7L),
        Arguments.of(Column.BIGINT, new BigDecimal("7.1"), REJECT),
        Arguments.of(Column.BIGINT, true, REJECT),
        Arguments.of(Column.INT, (short) 3, 3L),
        Arguments.of(Column.INT, "-12", -12L),
        Arguments.of(Column.INT, 2_147_483_648L, REJECT),
        Arguments.of(Column.DOUBLE, 1.5d, 1.5d),
        Arguments.of(Column.DOUBLE, "1.5", 1.5d),
        Arguments.of(Column.DOUBLE, 3L, 3.0d),
        Arguments.of(Column.DOUBLE, new BigDecimal("2.25"), 2.25d),
        Arguments.of(Column.DOUBLE, "abc", REJECT),
        Arguments.of(Column.DOUBLE, true, REJECT),
        Arguments.of(Column.FLOAT, 1.5f, 1.5d),
        Arguments.of(Column.FLOAT, "0.25", 0.25d),
        Arguments.of(Column.DECIMAL, "12.34", new BigDecimal("12.34")),
        Arguments.of(Column.DECIMAL, new BigDecimal("1.2"), new BigDecimal("1.20")),
        Arguments.of(Column.DECIMAL, 5L, new BigDecimal("5.00")),
        Arguments.of(Column.DECIMAL, 0.5d, new BigDecimal("0.50")),
        Arguments.of(Column.DECIMAL, 12.345d, REJECT),
        Arguments.of(Column.DECIMAL, "123456789.12", REJECT),
        Arguments.of(Column.DECIMAL, "twelve", REJECT),
        Arguments.of(Column.STRING, "x", "x"),
        Arguments.of(Column.STRING, 42L, "42"),
        Arguments.of(Column.STRING, true, "true"),
        Arguments.of(Column.STRING, new byte[] {1}, REJECT),
        Arguments.of(Column.STRING, List.of("a"), REJECT),
        Arguments.of(Column.BOOLEAN, true, true),
        Arguments.of(Column.BOOLEAN, "TRUE", true),
        Arguments.of(Column.BOOLEAN, "false", false),
        Arguments.of(Column.BOOLEAN, "yes", REJECT),
        Arguments.of(Column.BOOLEAN, 1L, REJECT),
        Arguments.of(Column.BYTES, new byte[] {1, 2}, "0102"),
        Arguments.of(Column.BYTES, ByteBuffer.wrap(new byte[] {3}), "03"),
        Arguments.of(Column.BYTES, "AQI=", "0102"),
        Arguments.of(Column.BYTES, "not base64!", REJECT),
        Arguments.of(Column.BYTES, 7L, REJECT),
        Arguments.of(Column.DATE, new java.util.Date(3 * 86_400_000L), LocalDate.of(1970, 1, 4)),
        Arguments.of(Column.DATE, 19_000, LocalDate.ofEpochDay(19_000)),
        Arguments.of(Column.DATE, "2026-12-01", LocalDate.of(2026, 12, 1)),
        Arguments.of(Column.DATE, "2026-13-01", REJECT),
        Arguments.of(Column.DATE, 1.5d, REJECT),
        Arguments.of(Column.TIME, new java.util.Date(3_600_000L), LocalTime.of(1, 0)),
        Arguments.of(Column.TIME, 3_600_000, LocalTime.of(1, 0)),
        Arguments.of(Column.TIME, "01:00:00.250", LocalTime.of(1, 0, 0, 250_000_000)),
        Arguments.of(Column.TIME, 86_400_000L, REJECT),
        Arguments.of(Column.TIMESTAMP, new java.util.Date(1_000L), Instant.ofEpochSecond(1)),
        Arguments.of(Column.TIMESTAMP, 1_000L, Instant.ofEpochSecond(1)),
        Arguments.of(
            Column.TIMESTAMP, "2026-12-01 10:00:00", Instant.parse("2026-12-01T10:00:00Z")),
        Arguments.of(Column.TIMESTAMP, "yesterday", REJECT),
        Arguments.of(
            Column.TIMESTAMP_TZ,
            "2026-12-01T10:00:00+01:00",
            Instant.parse("2026-12-01T09:00:00Z")),
        Arguments.of(Column.TIMESTAMP_TZ, true, REJECT));
  }

  @ParameterizedTest(name = "{0} <- {1}: {2}")
  @MethodSource("cases")
  void bothFormatsAcceptOrRejectTheSameValueTheSameWay(
      Column column, Object value, Object expected) {
    Map<String, Object> record = new HashMap<>();
    record.put("c", value);
    Outcome iceberg = iceberg(column, record);
    Outcome paimon = paimon(column, record);
    if (expected == REJECT) {
      assertThat(iceberg.rejection).as("Iceberg rejects %s", value).isNotNull();
      assertThat(paimon.rejection).as("Paimon rejects %s", value).isNotNull();
      assertThat(iceberg.rejection.field()).isEqualTo("c");
      assertThat(paimon.rejection.field()).isEqualTo("c");
      assertThat(wordsBeforeType(iceberg.rejection))
          .isEqualTo(wordsBeforeType(paimon.rejection))
          .endsWith("does not fit column 'c' of type ");
    } else {
      assertThat(iceberg.value).as("Iceberg").isEqualTo(expected);
      assertThat(paimon.value).as("Paimon").isEqualTo(expected);
    }
  }

  @Test
  void bothFormatsNameANestedFieldInAListAndAnErrorLeavesNoPathToTheNextRecord() {
    IcebergRecordConverter iceberg =
        new IcebergRecordConverter(
            new Schema(
                Types.NestedField.optional(1, "n", Types.LongType.get()),
                Types.NestedField.optional(
                    2,
                    "lines",
                    Types.ListType.ofOptional(
                        3,
                        Types.StructType.of(
                            Types.NestedField.optional(4, "sku", Types.LongType.get()))))));
    PaimonRowConverter paimon =
        new PaimonRowConverter(
            RowType.of(
                new DataType[] {
                  DataTypes.BIGINT(),
                  DataTypes.ARRAY(
                      RowType.of(new DataType[] {DataTypes.BIGINT()}, new String[] {"sku"}))
                },
                new String[] {"n", "lines"}));
    Map<String, Object> badSku =
        Map.of("n", 1L, "lines", List.of(Map.of("sku", 7L), Map.of("sku", "seven")));
    Map<String, Object> badN = Map.of("n", "one", "lines", List.of(Map.of("sku", 7L)));
    Map<String, Object> good = Map.of("n", 2L, "lines", List.of(Map.of("sku", 8L)));

    assertThat(
            catchThrowableOfType(RecordConversionException.class, () -> iceberg.convert(badSku))
                .field())
        .isEqualTo("lines[1].sku");
    assertThat(
            catchThrowableOfType(
                    RecordConversionException.class,
                    () -> paimon.convert(badSku, RowKind.INSERT, false, List.of()))
                .field())
        .isEqualTo("lines[1].sku");
    assertThat(
            catchThrowableOfType(RecordConversionException.class, () -> iceberg.convert(badN))
                .field())
        .isEqualTo("n");
    assertThat(
            catchThrowableOfType(
                    RecordConversionException.class,
                    () -> paimon.convert(badN, RowKind.INSERT, false, List.of()))
                .getMessage())
        .contains("column 'n'");
    assertThat(catchThrowableOfType(RecordConversionException.class, () -> iceberg.convert(good)))
        .isNull();
  }

  private record Outcome(Object value, RecordConversionException rejection) {}

  private static Outcome iceberg(Column column, Map<String, Object> record) {
    IcebergRecordConverter converter =
        new IcebergRecordConverter(new Schema(Types.NestedField.optional(1, "c", column.iceberg)));
    RecordConversionException e =
        catchThrowableOfType(RecordConversionException.class, () -> converter.convert(record));
    if (e != null) {
      return new Outcome(null, e);
    }
    try {
      return new Outcome(normalized(converter.convert(record).getField("c")), null);
    } catch (RecordConversionException unexpected) {
      throw new AssertionError(unexpected);
    }
  }

  private static Outcome paimon(Column column, Map<String, Object> record) {
    RowType rowType = RowType.of(new DataType[] {column.paimon}, new String[] {"c"});
    PaimonRowConverter converter = new PaimonRowConverter(rowType);
    GenericRow row;
    try {
      row = converter.convert(record, RowKind.INSERT, false, List.of());
    } catch (RecordConversionException e) {
      return new Outcome(null, e);
    }
    Object v = row.getField(0);
    return new Outcome(
        switch (column) {
          case DATE -> LocalDate.ofEpochDay((Integer) v);
          case TIME -> LocalTime.ofNanoOfDay((Integer) v * 1_000_000L);
          default -> normalized(v);
        },
        null);
  }

  /** Both formats' values as one kind of Java value per column type. */
  private static Object normalized(Object v) {
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (v instanceof Float f) {
      return f.doubleValue();
    }
    if (v instanceof ByteBuffer b) {
      byte[] bytes = new byte[b.remaining()];
      b.duplicate().get(bytes);
      return HexFormat.of().formatHex(bytes);
    }
    if (v instanceof byte[] b) {
      return HexFormat.of().formatHex(b);
    }
    if (v instanceof BinaryString s) {
      return s.toString();
    }
    if (v instanceof Decimal d) {
      return d.toBigDecimal();
    }
    if (v instanceof Timestamp t) {
      return Instant.ofEpochMilli(t.getMillisecond()).plusNanos(t.getNanoOfMillisecond());
    }
    if (v instanceof LocalDateTime t) {
      return t.toInstant(ZoneOffset.UTC);
    }
    if (v instanceof OffsetDateTime t) {
      return t.toInstant();
    }
    return v;
  }

  private static String wordsBeforeType(RecordConversionException e) {
    String message = e.getMessage();
    return message.substring(0, message.indexOf("of type ") + "of type ".length());
  }
}
