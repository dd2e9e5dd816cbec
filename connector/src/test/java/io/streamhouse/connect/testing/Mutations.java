package io.streamhouse.connect.testing;

import java.util.Arrays;
import java.util.Random;

/**
 * Hostile copies of real encoded bytes, as a fuzzer makes them: random bytes, bit flips, cuts,
 * spliced and repeated runs, and 1-, 2-, 4- and 8-byte fields overwritten at random places with the
 * values that break length and count fields (0, -1, the extremes, the input's own size, ...).
 */
public final class Mutations {
  private static final long[] INTERESTING = {
    0,
    1,
    -1,
    2,
    7,
    127,
    128,
    255,
    256,
    0x7fff,
    0x8000,
    0xffff,
    0x10000,
    0x7fffffffL,
    0x80000000L,
    0xffffffffL,
    1L << 20,
    1L << 24,
    Long.MAX_VALUE,
    Long.MIN_VALUE
  };

  private final Random random;

  public Mutations(long seed) {
    this.random = new Random(seed);
  }

  /** One mutated copy of {@code original}; never the same array. */
  public byte[] mutate(byte[] original) {
    return switch (random.nextInt(8)) {
      case 0 -> randomBytes(random.nextInt(Math.max(2, original.length * 2)));
      case 1 -> flipBits(original, 1 + random.nextInt(8));
      case 2 -> Arrays.copyOf(original, random.nextInt(Math.max(1, original.length)));
      case 3 -> overwrite(original, 4);
      case 4 -> overwrite(original, 2);
      case 5 -> overwrite(original, 1 + random.nextInt(8));
      case 6 -> splice(original);
      default -> overwrite(flipBits(original, 1), 4);
    };
  }

  public byte[] randomBytes(int length) {
    byte[] bytes = new byte[length];
    random.nextBytes(bytes);
    return bytes;
  }

  private byte[] flipBits(byte[] original, int flips) {
    byte[] copy = original.clone();
    for (int i = 0; i < flips && copy.length > 0; i++) {
      int bit = random.nextInt(copy.length * 8);
      copy[bit / 8] ^= (byte) (1 << (bit % 8));
    }
    return copy;
  }

  /**
   * A big-endian field of {@code width} bytes at a random offset set to an interesting or random
   * value.
   */
  private byte[] overwrite(byte[] original, int width) {
    byte[] copy = original.clone();
    if (copy.length < width) {
      return copy;
    }
    int at = random.nextInt(copy.length - width + 1);
    long value =
        random.nextInt(4) == 0
            ? original.length + random.nextInt(9) - 4
            : random.nextBoolean()
                ? INTERESTING[random.nextInt(INTERESTING.length)]
                : random.nextLong();
    for (int i = width - 1; i >= 0; i--) {
      copy[at + i] = (byte) value;
      value >>>= 8;
    }
    return copy;
  }

  /** A run of the input cut out, or repeated. */
  private byte[] splice(byte[] original) {
    if (original.length < 2) {
      return original.clone();
    }
    int from = random.nextInt(original.length);
    int to = from + random.nextInt(original.length - from);
    byte[] run = Arrays.copyOfRange(original, from, to);
    byte[] copy =
        new byte
            [random.nextBoolean() ? original.length - run.length : original.length + run.length];
    System.arraycopy(original, 0, copy, 0, from);
    if (copy.length > original.length) {
      System.arraycopy(run, 0, copy, from, run.length);
      System.arraycopy(original, from, copy, from + run.length, original.length - from);
    } else {
      System.arraycopy(original, to, copy, from, original.length - to);
    }
    return copy;
  }

  public int nextInt(int bound) {
    return random.nextInt(bound);
  }
}
