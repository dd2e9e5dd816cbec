package io.streamhouse.connect.converter.api;

import org.apache.kafka.connect.data.Struct;

/**
 * A {@link Struct} that holds the row a converter decoded and becomes the plain {@code Struct} only
 * when something (a transformation, a check) reads it through the {@code Struct} API.
 *
 * <p>What a converter implements: the {@code Struct} its {@code toConnectData} returns may be such
 * a subclass, giving its {@link DecodedRow} until it is made. {@code FastJsonConverter} does.
 *
 * <p>What a sink does with it: before it reads a record's value as a {@code Struct} it checks it
 * for this interface and, while {@link #decodedRow} gives a row, reads that row instead. Every
 * other value (any other converter's output, a {@code Struct} a transformation made or read) it
 * reads through Connect's {@code Struct} API, as it would without this interface. The sink tests a
 * record's value for this interface once; the structs nested in a row are {@code DecodedRow}s, a
 * class, as every nested value is tested.
 */
public interface DecodedStruct {
  /** The decoded row of this struct; null once the {@code Struct} was made (read that then). */
  DecodedRow decodedRow();

  /**
   * What a sink reads of a record's value: the decoded row of a {@code DecodedStruct} while it has
   * one, else the value itself.
   */
  static Object readable(Object value) {
    if (value instanceof DecodedStruct decoded) {
      DecodedRow row = decoded.decodedRow();
      if (row != null) {
        return row;
      }
    }
    return value;
  }
}
