package io.streamhouse.connect.migration;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

/**
 * Avro's binary encoding read from one byte array, where every declared length is checked against
 * the bytes that are left before anything is allocated: a string, bytes or fixed value longer than
 * the rest of the input, or an array or map block with more items than bytes left, fails with an
 * {@link IOException}. Avro's own decoder allocates what a length says first, so a few hostile
 * bytes could ask for gigabytes.
 */
final class BoundedAvroDecoder extends Decoder {
  /** The most items of one array or map block (a legitimate event has far fewer). */
  static final int MAX_BLOCK_ITEMS = 1_000_000;

  private final byte[] bytes;
  private int pos;

  BoundedAvroDecoder(byte[] bytes, int offset) {
    this.bytes = bytes;
    this.pos = offset;
  }

  /** Bytes not read yet. */
  int remaining() {
    return bytes.length - pos;
  }

  private void need(long n) throws IOException {
    if (n < 0) {
      throw new IOException("negative length " + n);
    }
    if (n > remaining()) {
      throw new EOFException("length " + n + " exceeds the " + remaining() + " bytes left");
    }
  }

  @Override
  public void readNull() {}

  @Override
  public boolean readBoolean() throws IOException {
    need(1);
    int b = bytes[pos++];
    if (b != 0 && b != 1) {
      throw new IOException("invalid boolean " + b);
    }
    return b == 1;
  }

  @Override
  public int readInt() throws IOException {
    long value = readLong();
    if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
      throw new IOException("int out of range: " + value);
    }
    return (int) value;
  }

  @Override
  public long readLong() throws IOException {
    long raw = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      need(1);
      int b = bytes[pos++] & 0xff;
      raw |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        return (raw >>> 1) ^ -(raw & 1); // zig-zag
      }
    }
    throw new IOException("varint longer than 10 bytes");
  }

  @Override
  public float readFloat() throws IOException {
    need(4);
    int bits = ByteBuffer.wrap(bytes, pos, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    pos += 4;
    return Float.intBitsToFloat(bits);
  }

  @Override
  public double readDouble() throws IOException {
    need(8);
    long bits = ByteBuffer.wrap(bytes, pos, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    pos += 8;
    return Double.longBitsToDouble(bits);
  }

  private int length() throws IOException {
    long length = readLong();
    need(length);
    return (int) length;
  }

  @Override
  public Utf8 readString(Utf8 old) throws IOException {
    int length = length();
    Utf8 result = old != null ? old : new Utf8();
    result.setByteLength(length);
    System.arraycopy(bytes, pos, result.getBytes(), 0, length);
    pos += length;
    return result;
  }

  @Override
  public String readString() throws IOException {
    int length = length();
    String s = new String(bytes, pos, length, StandardCharsets.UTF_8);
    pos += length;
    return s;
  }

  @Override
  public void skipString() throws IOException {
    pos += length();
  }

  @Override
  public ByteBuffer readBytes(ByteBuffer old) throws IOException {
    int length = length();
    ByteBuffer result = ByteBuffer.allocate(length);
    result.put(bytes, pos, length).flip();
    pos += length;
    return result;
  }

  @Override
  public void skipBytes() throws IOException {
    pos += length();
  }

  @Override
  public void readFixed(byte[] target, int start, int length) throws IOException {
    need(length);
    System.arraycopy(bytes, pos, target, start, length);
    pos += length;
  }

  @Override
  public void skipFixed(int length) throws IOException {
    need(length);
    pos += length;
  }

  @Override
  public int readEnum() throws IOException {
    return readInt();
  }

  /** The item count of the next block; a negative count is followed by the block's byte size. */
  private long blockCount() throws IOException {
    long count = readLong();
    if (count < 0) {
      if (count == Long.MIN_VALUE) {
        throw new IOException("invalid block count");
      }
      count = -count;
      need(readLong()); // the block's size in bytes: checked, not needed
    }
    if (count > MAX_BLOCK_ITEMS || count > remaining()) {
      throw new IOException(
          "block of " + count + " items with " + remaining() + " bytes left is not plausible");
    }
    return count;
  }

  @Override
  public long readArrayStart() throws IOException {
    return blockCount();
  }

  @Override
  public long arrayNext() throws IOException {
    return blockCount();
  }

  @Override
  public long skipArray() throws IOException {
    throw new IOException("skipping is not supported");
  }

  @Override
  public long readMapStart() throws IOException {
    return blockCount();
  }

  @Override
  public long mapNext() throws IOException {
    return blockCount();
  }

  @Override
  public long skipMap() throws IOException {
    throw new IOException("skipping is not supported");
  }

  @Override
  public int readIndex() throws IOException {
    return readInt();
  }
}
