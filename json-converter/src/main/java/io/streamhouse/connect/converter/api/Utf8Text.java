package io.streamhouse.connect.converter.api;

/**
 * A string as a converter decoded it, kept as UTF-8 bytes for a sink that writes UTF-8 (Parquet
 * does), so that neither a {@code String} nor its encoding back to bytes is made; {@link #toString}
 * is the text. A {@link DecodedStruct}'s fields may hold strings in this form.
 *
 * <p>A class rather than an interface: a sink tests every field value for it, and a type test that
 * fails (every value that is not a string) is one comparison against a class but, on Java 17, a
 * search through the value's interfaces against an interface.
 */
public abstract class Utf8Text implements CharSequence {
  /** For the string forms of converters. */
  protected Utf8Text() {}

  /** The text as well-formed UTF-8; the array may be this object's own: not to be changed. */
  public abstract byte[] utf8();

  /** The text. */
  @Override
  public abstract String toString();

  @Override
  public int length() {
    return toString().length();
  }

  @Override
  public char charAt(int index) {
    return toString().charAt(index);
  }

  @Override
  public CharSequence subSequence(int start, int end) {
    return toString().subSequence(start, end);
  }
}
