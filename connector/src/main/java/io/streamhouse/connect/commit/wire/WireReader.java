package io.streamhouse.connect.commit.wire;

import io.streamhouse.connect.commit.wire.InvalidControlEventException.Reason;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads the fields of an untrusted byte array. Every length and count read off the wire is checked
 * against the bytes that remain before anything is allocated, so no input makes it allocate more
 * than the input's own size; every failure is an {@link InvalidControlEventException}.
 */
final class WireReader {
  private final byte[] data;
  private final int end;
  private int position;

  WireReader(byte[] data, int offset, int end) {
    this.data = data;
    this.position = offset;
    this.end = end;
  }

  int remaining() {
    return end - position;
  }

  private void need(int bytes, String field) throws InvalidControlEventException {
    if (bytes < 0 || bytes > remaining()) {
      throw new InvalidControlEventException(
          Reason.TRUNCATED, field + " needs " + bytes + " bytes, " + remaining() + " remain");
    }
  }

  int readUnsignedByte(String field) throws InvalidControlEventException {
    need(1, field);
    return data[position++] & 0xff;
  }

  int readInt(String field) throws InvalidControlEventException {
    need(4, field);
    int value = ByteBuffer.wrap(data, position, 4).getInt();
    position += 4;
    return value;
  }

  long readLong(String field) throws InvalidControlEventException {
    need(8, field);
    long value = ByteBuffer.wrap(data, position, 8).getLong();
    position += 8;
    return value;
  }

  /** An int in {@code [min, max]}. */
  int readInt(String field, int min, int max) throws InvalidControlEventException {
    int value = readInt(field);
    if (value < min || value > max) {
      throw malformed(field + " " + value + " is outside [" + min + ", " + max + "]");
    }
    return value;
  }

  /** A long in {@code [min, max]}. */
  long readLong(String field, long min, long max) throws InvalidControlEventException {
    long value = readLong(field);
    if (value < min || value > max) {
      throw malformed(field + " " + value + " is outside [" + min + ", " + max + "]");
    }
    return value;
  }

  /**
   * A count of elements each at least {@code minElementBytes} long: refused when the remaining
   * bytes cannot hold that many, so a count never sizes an allocation beyond the input.
   */
  int readCount(String field, int minElementBytes, int max) throws InvalidControlEventException {
    int count = readInt(field);
    if (count < 0 || count > max) {
      throw malformed(field + " " + count + " is outside [0, " + max + "]");
    }
    if ((long) count * minElementBytes > remaining()) {
      throw new InvalidControlEventException(
          Reason.TRUNCATED,
          field + " " + count + " does not fit in the " + remaining() + " bytes that remain");
    }
    return count;
  }

  /**
   * A string of 1 to {@code maxBytes} bytes of valid UTF-8, preceded by its unsigned 16-bit length.
   */
  String readString(String field, int maxBytes) throws InvalidControlEventException {
    need(2, field);
    int length = ((data[position] & 0xff) << 8) | (data[position + 1] & 0xff);
    position += 2;
    if (length == 0 || length > maxBytes) {
      throw malformed(field + " of " + length + " bytes is outside [1, " + maxBytes + "]");
    }
    need(length, field);
    try {
      String value =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(data, position, length))
              .toString();
      position += length;
      return value;
    } catch (CharacterCodingException e) {
      throw malformed(field + " is not valid UTF-8");
    }
  }

  /** {@code length} bytes (checked against what remains before the copy). */
  byte[] readBytes(String field, int maxBytes) throws InvalidControlEventException {
    int length = readInt(field + " length", 0, maxBytes);
    need(length, field);
    byte[] bytes = Arrays.copyOfRange(data, position, position + length);
    position += length;
    return bytes;
  }

  void requireEnd(String what) throws InvalidControlEventException {
    if (position != end) {
      throw malformed(what + " has " + remaining() + " unread bytes at its end");
    }
  }

  static InvalidControlEventException malformed(String message) {
    return new InvalidControlEventException(Reason.MALFORMED, message);
  }
}
