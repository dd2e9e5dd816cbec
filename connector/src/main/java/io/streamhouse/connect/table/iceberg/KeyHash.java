package io.streamhouse.connect.table.iceberg;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.relocated.com.google.common.hash.HashFunction;
import org.apache.iceberg.relocated.com.google.common.hash.Hasher;
import org.apache.iceberg.relocated.com.google.common.hash.Hashing;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.util.DateTimeUtil;

/**
 * A 128-bit hash (murmur3) of a row's key column values, the same for a row converted from a Kafka
 * record and for the row read back from a data file: values are hashed in a canonical form per
 * Iceberg type (strings as UTF-8, dates as days, timestamps as microseconds, decimals as unscaled
 * bytes and scale). Two different keys share a hash with a probability of about n²/2¹²⁹ for n keys.
 */
final class KeyHash {
  private static final HashFunction MURMUR = Hashing.murmur3_128();

  private final List<Type> types;

  KeyHash(List<Type> types) {
    this.types = List.copyOf(types);
  }

  /** The hash of {@code values} (one per key column, in key order; none null), low and high. */
  long[] of(Object[] values) {
    Hasher hasher = MURMUR.newHasher();
    for (int i = 0; i < values.length; i++) {
      put(hasher, types.get(i), values[i]);
    }
    byte[] bytes = hasher.hash().asBytes();
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    return new long[] {buffer.getLong(), buffer.getLong()};
  }

  /** The key values at {@code positions} of {@code row}. */
  static Object[] values(StructLike row, int[] positions) {
    Object[] values = new Object[positions.length];
    for (int i = 0; i < positions.length; i++) {
      values[i] = row.get(positions[i], Object.class);
    }
    return values;
  }

  /**
   * A type's family: the types schema evolution may widen into each other (int to long, float to
   * double) hash alike, so a widened key column still finds the rows written before.
   */
  private static int family(Type type) {
    return switch (type.typeId()) {
      case INTEGER -> Type.TypeID.LONG.ordinal();
      case FLOAT -> Type.TypeID.DOUBLE.ordinal();
      default -> type.typeId().ordinal();
    };
  }

  private static void put(Hasher hasher, Type type, Object value) {
    hasher.putInt(family(type));
    switch (type.typeId()) {
      case BOOLEAN -> hasher.putBoolean((Boolean) value);
      case INTEGER, LONG -> hasher.putLong(((Number) value).longValue());
      case FLOAT, DOUBLE -> hasher.putDouble(((Number) value).doubleValue());
      case DATE ->
          hasher.putLong(
              value instanceof LocalDate d ? d.toEpochDay() : ((Number) value).longValue());
      case TIME ->
          hasher.putLong(
              value instanceof LocalTime t
                  ? DateTimeUtil.microsFromTime(t)
                  : ((Number) value).longValue());
      case TIMESTAMP, TIMESTAMP_NANO -> hasher.putLong(micros(value));
      case STRING -> {
        byte[] utf8 = value.toString().getBytes(StandardCharsets.UTF_8);
        hasher.putInt(utf8.length).putBytes(utf8);
      }
      case UUID -> {
        UUID uuid = value instanceof UUID u ? u : UUID.fromString(value.toString());
        hasher.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
      }
      case DECIMAL -> {
        BigDecimal decimal = (BigDecimal) value;
        byte[] unscaled = decimal.unscaledValue().toByteArray();
        hasher.putInt(decimal.scale()).putInt(unscaled.length).putBytes(unscaled);
      }
      case BINARY, FIXED -> {
        byte[] bytes;
        if (value instanceof ByteBuffer buffer) {
          bytes = new byte[buffer.remaining()];
          buffer.duplicate().get(bytes);
        } else {
          bytes = (byte[]) value;
        }
        hasher.putInt(bytes.length).putBytes(bytes);
      }
      default -> {
        byte[] text = value.toString().getBytes(StandardCharsets.UTF_8);
        hasher.putInt(text.length).putBytes(text);
      }
    }
  }

  private static long micros(Object value) {
    if (value instanceof OffsetDateTime t) {
      return DateTimeUtil.microsFromTimestamptz(t);
    }
    if (value instanceof LocalDateTime t) {
      return DateTimeUtil.microsFromTimestamp(t);
    }
    return ((Number) value).longValue();
  }
}
