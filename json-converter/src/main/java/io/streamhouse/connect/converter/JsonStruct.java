package io.streamhouse.connect.converter;

import io.streamhouse.connect.converter.api.DecodedStruct;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;

/**
 * The {@link Struct} {@link FastJsonConverter} returns for a payload it decoded: it holds the
 * decoded {@link JsonRow} and becomes the {@code Struct} {@code JsonConverter} would have made the
 * first time anything reads or changes it through the {@code Struct} API (a transformation, a
 * check), so to everyone it is that {@code Struct}. A sink that reads it as a {@link DecodedStruct}
 * reads the row and skips building it: the Streamhouse writers turn the row straight into a table
 * row whose strings stay UTF-8. Every public method of {@code Struct} but {@link #schema} is
 * overridden here (JsonStructTest checks it against the Kafka version built with). One difference
 * remains: a plain {@code Struct}'s {@code equals} takes only its own class as equal, so it never
 * equals a {@code JsonStruct}, though a {@code JsonStruct} equals it.
 *
 * <p>The row's values need no {@link Struct#put} checks to be made: {@link PayloadDecoder} reads
 * each for its field's schema (the randomized FastJsonConverterTest compares every reading with
 * {@code JsonConverter}'s through these methods).
 */
final class JsonStruct extends Struct implements DecodedStruct {
  private JsonRow row;

  JsonStruct(JsonRow row) {
    super(row.schema());
    this.row = row;
  }

  /** The row not yet made into this {@code Struct}; null once it was. */
  JsonRow undecodedRow() {
    return row;
  }

  /** From the row while this is not made yet, else from this {@code Struct}. */
  @Override
  public Object decoded(Field field) {
    JsonRow decoding = row;
    return decoding != null ? decoding.decoded(field) : super.get(field);
  }

  /** Itself: a {@code Struct}, made from its row once read as one. */
  @Override
  public Struct toStruct() {
    return this;
  }

  private void decode() {
    JsonRow decoding = row;
    if (decoding != null) {
      row = null; // the puts of fill land here too
      try {
        decoding.fill(this);
      } catch (RuntimeException e) {
        row = decoding; // not half a Struct: the next read fails the same way
        throw e;
      }
    }
  }

  @Override
  public Object get(String fieldName) {
    decode();
    return super.get(fieldName);
  }

  @Override
  public Object get(Field field) {
    decode();
    return super.get(field);
  }

  @Override
  public Object getWithoutDefault(String fieldName) {
    decode();
    return super.getWithoutDefault(fieldName);
  }

  @Override
  public Byte getInt8(String fieldName) {
    decode();
    return super.getInt8(fieldName);
  }

  @Override
  public Short getInt16(String fieldName) {
    decode();
    return super.getInt16(fieldName);
  }

  @Override
  public Integer getInt32(String fieldName) {
    decode();
    return super.getInt32(fieldName);
  }

  @Override
  public Long getInt64(String fieldName) {
    decode();
    return super.getInt64(fieldName);
  }

  @Override
  public Float getFloat32(String fieldName) {
    decode();
    return super.getFloat32(fieldName);
  }

  @Override
  public Double getFloat64(String fieldName) {
    decode();
    return super.getFloat64(fieldName);
  }

  @Override
  public Boolean getBoolean(String fieldName) {
    decode();
    return super.getBoolean(fieldName);
  }

  @Override
  public String getString(String fieldName) {
    decode();
    return super.getString(fieldName);
  }

  @Override
  public byte[] getBytes(String fieldName) {
    decode();
    return super.getBytes(fieldName);
  }

  @Override
  public <T> List<T> getArray(String fieldName) {
    decode();
    return super.getArray(fieldName);
  }

  @Override
  public <K, V> Map<K, V> getMap(String fieldName) {
    decode();
    return super.getMap(fieldName);
  }

  @Override
  public Struct getStruct(String fieldName) {
    decode();
    return super.getStruct(fieldName);
  }

  @Override
  public Struct put(String fieldName, Object value) {
    decode();
    return super.put(fieldName, value);
  }

  @Override
  public Struct put(Field field, Object value) {
    decode();
    return super.put(field, value);
  }

  @Override
  public void validate() {
    decode();
    super.validate();
  }

  /**
   * Equal to any {@code Struct} of the same schema and values, as {@link Struct#equals} compares
   * them (which itself only takes a {@code Struct} of its own class as equal).
   */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Struct other) || !schema().equals(other.schema())) {
      return false;
    }
    decode();
    for (Field field : schema().fields()) {
      if (!Objects.deepEquals(
          getWithoutDefault(field.name()), other.getWithoutDefault(field.name()))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    decode();
    return super.hashCode();
  }

  @Override
  public String toString() {
    decode();
    return super.toString();
  }
}
