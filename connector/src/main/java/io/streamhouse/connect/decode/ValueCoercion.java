package io.streamhouse.connect.decode;

import io.streamhouse.connect.converter.api.DecodedStruct;
import io.streamhouse.connect.errors.RecordConversionException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.Date;

/**
 * The one policy for fitting a Connect value into a column of a primitive type, shared by the
 * Iceberg and the Paimon converters so that a record lands the same way in either format. A value
 * is accepted when it converts without losing information; anything else is a {@link
 * RecordConversionException} naming the field, the value and the column type (the field is any
 * object whose text names it, such as a converter's {@link ValuePath}, spelt out only for an
 * error):
 *
 * <ul>
 *   <li>integer columns: Java integers, whole {@code BigDecimal}/{@code BigInteger}/floating
 *       values, and strings that parse as an integer ({@code "28638"}: keys read with {@code
 *       StringConverter}), each within the column's range;
 *   <li>floating columns: any number, or a string that parses as one;
 *   <li>decimal columns: numbers and numeric strings that fit the scale without rounding and the
 *       precision;
 *   <li>string columns: strings, numbers and booleans (as their text);
 *   <li>boolean columns: booleans and the strings {@code true}/{@code false} in any case;
 *   <li>binary columns: bytes, and Base64 strings (how {@code JsonConverter} writes bytes);
 *   <li>date, time and timestamp columns: Connect's logical values ({@code java.util.Date}), epoch
 *       numbers (days, milliseconds of the day, milliseconds), {@code java.time} values and
 *       ISO-8601 strings.
 * </ul>
 *
 * Strings are taken as they are: no trimming, so {@code " 5"} is not an integer.
 */
public final class ValueCoercion {
  private static final long MILLIS_PER_DAY = 86_400_000L;

  private ValueCoercion() {}

  public static boolean toBoolean(Object v, Object field, Object columnType)
      throws RecordConversionException {
    if (v instanceof Boolean b) {
      return b;
    }
    if (v instanceof String s && (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false"))) {
      return Boolean.parseBoolean(s);
    }
    throw misfit(v, field, columnType, null);
  }

  /** An integer in {@code [min, max]}. */
  public static long toLong(Object v, long min, long max, Object field, Object columnType)
      throws RecordConversionException {
    long l;
    try {
      if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
        l = ((Number) v).longValue();
      } else if (v instanceof BigDecimal d) {
        l = d.longValueExact();
      } else if (v instanceof BigInteger i) {
        l = i.longValueExact();
      } else if ((v instanceof Double || v instanceof Float)
          && Double.isFinite(((Number) v).doubleValue())) {
        l = BigDecimal.valueOf(((Number) v).doubleValue()).longValueExact();
      } else if (v instanceof String s) {
        l = Long.parseLong(s);
      } else {
        throw misfit(v, field, columnType, null);
      }
    } catch (ArithmeticException | NumberFormatException e) {
      throw misfit(v, field, columnType, e);
    }
    if (l < min || l > max) {
      throw misfit(v, field, columnType, null);
    }
    return l;
  }

  public static double toDouble(Object v, Object field, Object columnType)
      throws RecordConversionException {
    if (v instanceof Number n) {
      return n.doubleValue();
    }
    if (v instanceof String s) {
      try {
        return Double.parseDouble(s);
      } catch (NumberFormatException e) {
        throw misfit(v, field, columnType, e);
      }
    }
    throw misfit(v, field, columnType, null);
  }

  /**
   * A decimal with exactly {@code scale} digits after the point and at most {@code precision}
   * digits.
   */
  public static BigDecimal toDecimal(
      Object v, int precision, int scale, Object field, Object columnType)
      throws RecordConversionException {
    BigDecimal d;
    try {
      if (v instanceof BigDecimal b) {
        d = b;
      } else if (v instanceof BigInteger i) {
        d = new BigDecimal(i);
      } else if (v instanceof Long
          || v instanceof Integer
          || v instanceof Short
          || v instanceof Byte) {
        d = BigDecimal.valueOf(((Number) v).longValue());
      } else if ((v instanceof Double || v instanceof Float)
          && Double.isFinite(((Number) v).doubleValue())) {
        d = new BigDecimal(v.toString());
      } else if (v instanceof String s) {
        d = new BigDecimal(s);
      } else {
        throw misfit(v, field, columnType, null);
      }
      BigDecimal scaled = d.setScale(scale, RoundingMode.UNNECESSARY);
      if (scaled.precision() > precision) {
        throw new RecordConversionException(
            String.valueOf(field),
            describe(v, field, columnType) + ": it needs precision " + scaled.precision());
      }
      return scaled;
    } catch (ArithmeticException | NumberFormatException e) {
      throw misfit(v, field, columnType, e);
    }
  }

  public static String toText(Object v, Object field, Object columnType)
      throws RecordConversionException {
    if (v instanceof String s) {
      return s;
    }
    if (v instanceof Number || v instanceof Boolean) {
      return v.toString();
    }
    throw misfit(v, field, columnType, null);
  }

  public static byte[] toBytes(Object v, Object field, Object columnType)
      throws RecordConversionException {
    if (v instanceof byte[] b) {
      return b;
    }
    if (v instanceof ByteBuffer buffer) {
      byte[] b = new byte[buffer.remaining()];
      buffer.duplicate().get(b);
      return b;
    }
    if (v instanceof String s) {
      try {
        return Base64.getDecoder().decode(s);
      } catch (IllegalArgumentException e) {
        throw misfit(v, field, columnType, e);
      }
    }
    throw misfit(v, field, columnType, null);
  }

  public static LocalDate toDate(Object v, Object field, Object columnType)
      throws RecordConversionException {
    try {
      if (v instanceof Date d) {
        return LocalDate.ofEpochDay(Math.floorDiv(d.getTime(), MILLIS_PER_DAY));
      }
      if (v instanceof LocalDate d) {
        return d;
      }
      if (v instanceof Integer || v instanceof Long) {
        return LocalDate.ofEpochDay(
            toLong(v, Integer.MIN_VALUE, Integer.MAX_VALUE, field, columnType));
      }
      if (v instanceof String s) {
        return LocalDate.parse(s);
      }
    } catch (DateTimeException e) {
      throw misfit(v, field, columnType, e);
    }
    throw misfit(v, field, columnType, null);
  }

  public static LocalTime toTime(Object v, Object field, Object columnType)
      throws RecordConversionException {
    try {
      if (v instanceof Date d) {
        return LocalTime.ofNanoOfDay(Math.floorMod(d.getTime(), MILLIS_PER_DAY) * 1_000_000L);
      }
      if (v instanceof LocalTime t) {
        return t;
      }
      if (v instanceof Integer || v instanceof Long) {
        return LocalTime.ofNanoOfDay(
            toLong(v, 0, MILLIS_PER_DAY - 1, field, columnType) * 1_000_000L);
      }
      if (v instanceof String s) {
        return LocalTime.parse(s);
      }
    } catch (DateTimeException e) {
      throw misfit(v, field, columnType, e);
    }
    throw misfit(v, field, columnType, null);
  }

  public static Instant toInstant(Object v, Object field, Object columnType)
      throws RecordConversionException {
    try {
      if (v instanceof Date d) {
        return d.toInstant();
      }
      if (v instanceof Instant i) {
        return i;
      }
      if (v instanceof Long || v instanceof Integer) {
        return Instant.ofEpochMilli(((Number) v).longValue());
      }
      if (v instanceof String s) {
        return parseInstant(s);
      }
    } catch (DateTimeException e) {
      throw misfit(v, field, columnType, e);
    }
    throw misfit(v, field, columnType, null);
  }

  /** ISO-8601 with an offset, or without one taken as UTC; a space may stand for the {@code T}. */
  private static Instant parseInstant(String s) {
    String iso = s.replace(' ', 'T');
    try {
      return OffsetDateTime.parse(iso).toInstant();
    } catch (DateTimeParseException e) {
      return LocalDateTime.parse(iso).toInstant(ZoneOffset.UTC);
    }
  }

  /** The error for a value of the wrong kind: the same words from both formats. */
  public static RecordConversionException misfit(
      Object v, Object field, Object columnType, Throwable cause) {
    String message = describe(v, field, columnType);
    String path = String.valueOf(field);
    return cause == null
        ? new RecordConversionException(path, message)
        : new RecordConversionException(path, message + ": " + cause.getMessage(), cause);
  }

  private static String describe(Object v, Object field, Object columnType) {
    if (v instanceof DecodedStruct decoded) {
      v = decoded.toStruct(); // named as the Struct it stands for
    }
    return "a "
        + (v == null ? "null" : v.getClass().getSimpleName())
        + " value ("
        + abbreviate(v)
        + ") does not fit column '"
        + field
        + "' of type "
        + columnType;
  }

  private static String abbreviate(Object v) {
    String s = v instanceof byte[] b ? b.length + " bytes" : String.valueOf(v);
    return s.length() > 60 ? s.substring(0, 57) + "..." : s;
  }
}
