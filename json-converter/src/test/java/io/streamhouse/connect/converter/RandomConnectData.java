package io.streamhouse.connect.converter;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

/**
 * Random Connect schemas of every type (optional or not, with and without defaults, logical types,
 * maps with string and other keys, nested structs) and random values for them, nulls included.
 */
final class RandomConnectData {
  private final Random random;
  private int structs;

  RandomConnectData(long seed) {
    this.random = new Random(seed);
  }

  Schema schema(int depth) {
    int kinds = depth <= 0 ? 13 : 16;
    SchemaBuilder builder;
    switch (random.nextInt(kinds)) {
      case 0 -> builder = SchemaBuilder.bool();
      case 1 -> builder = SchemaBuilder.int8();
      case 2 -> builder = SchemaBuilder.int16();
      case 3 -> builder = SchemaBuilder.int32();
      case 4 -> builder = SchemaBuilder.int64();
      case 5 -> builder = SchemaBuilder.float32();
      case 6 -> builder = SchemaBuilder.float64();
      case 7 -> builder = SchemaBuilder.string();
      case 8 -> builder = SchemaBuilder.bytes();
      case 9 -> builder = Decimal.builder(random.nextInt(6));
      case 10 -> builder = Date.builder();
      case 11 -> builder = Time.builder();
      case 12 -> builder = Timestamp.builder();
      case 13 -> builder = SchemaBuilder.array(schema(depth - 1));
      case 14 ->
          builder =
              random.nextBoolean()
                  ? SchemaBuilder.map(Schema.STRING_SCHEMA, schema(depth - 1))
                  : SchemaBuilder.map(schema(0), schema(depth - 1));
      default -> {
        builder = SchemaBuilder.struct().name("io.streamhouse.test.S" + structs++);
        int fields = 1 + random.nextInt(6);
        for (int i = 0; i < fields; i++) {
          builder.field("f" + i, schema(depth - 1));
        }
      }
    }
    if (random.nextInt(3) == 0) {
      builder.optional();
    }
    if (random.nextInt(5) == 0 && isPrimitive(builder.type())) {
      builder.defaultValue(value(builder.build(), 0, false));
    }
    if (random.nextInt(8) == 0) {
      builder.doc("doc " + random.nextInt(100));
    }
    return builder.build();
  }

  Object value(Schema schema) {
    return value(schema, 0, true);
  }

  private Object value(Schema schema, int depth, boolean nulls) {
    if (nulls && schema.isOptional() && random.nextInt(4) == 0) {
      return null;
    }
    String name = schema.name();
    if (Decimal.LOGICAL_NAME.equals(name)) {
      int scale = Integer.parseInt(schema.parameters().get(Decimal.SCALE_FIELD));
      return new BigDecimal(new BigInteger(1 + random.nextInt(80), random), scale)
          .multiply(BigDecimal.valueOf(random.nextBoolean() ? 1 : -1));
    }
    if (Date.LOGICAL_NAME.equals(name)) {
      return new java.util.Date((random.nextInt(40_000) - 20_000) * 86_400_000L);
    }
    if (Time.LOGICAL_NAME.equals(name)) {
      return new java.util.Date(random.nextInt(86_400_000));
    }
    if (Timestamp.LOGICAL_NAME.equals(name)) {
      return new java.util.Date(random.nextLong() >> 20);
    }
    return switch (schema.type()) {
      case BOOLEAN -> random.nextBoolean();
      case INT8 -> (byte) random.nextInt();
      case INT16 -> (short) random.nextInt();
      case INT32 -> random.nextInt() >> random.nextInt(32);
      case INT64 -> random.nextLong() >> random.nextInt(64);
      case FLOAT32 -> floatValue();
      case FLOAT64 -> doubleValue();
      case STRING -> text();
      case BYTES -> {
        byte[] bytes = new byte[random.nextInt(20)];
        random.nextBytes(bytes);
        yield bytes;
      }
      case ARRAY -> {
        List<Object> list = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
          list.add(value(schema.valueSchema(), depth + 1, true));
        }
        yield list;
      }
      case MAP -> {
        Map<Object, Object> map = new HashMap<>();
        for (int i = random.nextInt(4); i > 0; i--) {
          map.put(
              value(schema.keySchema(), depth + 1, false),
              value(schema.valueSchema(), depth + 1, true));
        }
        yield map;
      }
      case STRUCT -> {
        Struct struct = new Struct(schema);
        for (Field field : schema.fields()) {
          boolean missing = field.schema().defaultValue() != null && random.nextInt(4) == 0;
          Object v = missing ? null : value(field.schema(), depth + 1, true);
          if (v != null) {
            struct.put(field, v);
          }
        }
        yield struct;
      }
    };
  }

  private float floatValue() {
    return switch (random.nextInt(8)) {
      case 0 -> Float.NaN;
      case 1 -> Float.POSITIVE_INFINITY;
      case 2 -> random.nextInt(1000);
      case 3 -> Float.MIN_VALUE;
      default -> (random.nextFloat() - 0.5f) * (float) Math.pow(10, random.nextInt(30) - 15);
    };
  }

  private double doubleValue() {
    return switch (random.nextInt(8)) {
      case 0 -> Double.NaN;
      case 1 -> Double.NEGATIVE_INFINITY;
      case 2 -> random.nextInt(1000);
      case 3 -> Double.MAX_VALUE;
      default -> (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(600) - 300);
    };
  }

  private String text() {
    String[] parts = {"a", "é", "日本", "🎁", "\"", "\\", "\n", "\u0000", " ", "tab\t", "x"};
    StringBuilder sb = new StringBuilder();
    for (int i = random.nextInt(6); i > 0; i--) {
      sb.append(parts[random.nextInt(parts.length)]);
    }
    return sb.toString();
  }

  private static boolean isPrimitive(Schema.Type type) {
    return type.isPrimitive();
  }
}
