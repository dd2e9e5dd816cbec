package io.streamhouse.e2e.bench;

import io.streamhouse.connect.converter.FastJsonConverter;
import io.streamhouse.connect.converter.api.DecodedStruct;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.Converter;

/**
 * Converter microbenchmark, in one JVM: Kafka's {@code JsonConverter} against our {@link
 * FastJsonConverter} on the bytes of {@link BenchRecords} (JSON with schemas, as the drain
 * benchmark produces them), the two taking turns round by round (the first of each pair
 * alternating), each round converting every record once. Before timing it checks that both read
 * every record into equal data. Prints ns/record and records/s per round and the medians, and for
 * {@code FastJsonConverter} also the records read as our sink reads them: as a {@link
 * DecodedStruct}, never made a {@code Struct}.
 *
 * <pre>
 * e2e/benchmark-converter.sh [--records 50000] [--rounds 20] [--warmup-rounds 5]
 * </pre>
 */
public final class ConverterBenchmark {
  private ConverterBenchmark() {}

  public static void main(String[] args) {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    int records = Integer.parseInt(o.getOrDefault("records", "50000"));
    int rounds = Integer.parseInt(o.getOrDefault("rounds", "20"));
    int warmup = Integer.parseInt(o.getOrDefault("warmup-rounds", "5"));

    BenchRecords source = new BenchRecords();
    List<byte[]> values = new ArrayList<>(records);
    for (int i = 0; i < records; i++) {
      values.add(source.nextJson(i, "orders").getBytes(StandardCharsets.UTF_8));
    }
    Converter kafka = new JsonConverter();
    Converter ours = new FastJsonConverter();
    Map<String, Object> config = Map.of("schemas.enable", true);
    kafka.configure(config, false);
    ours.configure(config, false);
    for (byte[] value : values) {
      SchemaAndValue expected = kafka.toConnectData("bench", value);
      SchemaAndValue actual = ours.toConnectData("bench", value);
      // Ours first: its Struct (a JsonStruct until read) equals JsonConverter's, while a plain
      // Struct takes only its own class as equal.
      if (!actual.equals(expected)) {
        throw new IllegalStateException(
            "The converters differ on " + new String(value, StandardCharsets.UTF_8));
      }
    }
    System.out.printf(
        "%,d BenchRecords, %.0f bytes each on average (%.0f of payload); both converters read"
            + " every one into equal data%n",
        records, source.meanRecordBytes(), source.meanPayloadBytes());

    double[] kafkaNs = new double[rounds];
    double[] oursNs = new double[rounds];
    double[] rowsNs = new double[rounds];
    Field id =
        values.isEmpty() ? null : kafka.toConnectData("bench", values.get(0)).schema().field("id");
    long sink = 0;
    for (int round = -warmup; round < rounds; round++) {
      boolean kafkaFirst = Math.floorMod(round, 2) == 0;
      long[] first = time(kafkaFirst ? kafka : ours, values);
      long[] second = time(kafkaFirst ? ours : kafka, values);
      long[] rows = timeRows(ours, values, id);
      sink += first[1] + second[1] + rows[1];
      double kafkaRound = (double) (kafkaFirst ? first[0] : second[0]) / records;
      double oursRound = (double) (kafkaFirst ? second[0] : first[0]) / records;
      if (round >= 0) {
        kafkaNs[round] = kafkaRound;
        oursNs[round] = oursRound;
        rowsNs[round] = (double) rows[0] / records;
        System.out.printf(
            "round %2d: JsonConverter %,8.0f ns/record, FastJsonConverter %,8.0f ns/record"
                + " (%,8.0f as rows)%n",
            round + 1, kafkaRound, oursRound, rowsNs[round]);
      }
    }
    double kafkaMedian = median(kafkaNs);
    double oursMedian = median(oursNs);
    System.out.printf(
        "%nmedian of %d rounds (after %d warm-up rounds), %,d records each:%n",
        rounds, warmup, records);
    System.out.printf(
        "  JsonConverter      %,8.0f ns/record  %,12.0f records/s%n",
        kafkaMedian, 1e9 / kafkaMedian);
    System.out.printf(
        "  FastJsonConverter  %,8.0f ns/record  %,12.0f records/s%n", oursMedian, 1e9 / oursMedian);
    System.out.printf("  FastJsonConverter is %.2f times as fast%n", kafkaMedian / oursMedian);
    double rowsMedian = median(rowsNs);
    System.out.printf(
        "  FastJsonConverter, rows as the sink reads them: %,8.0f ns/record  %,12.0f records/s"
            + " (%.2f times as fast as JsonConverter)%n",
        rowsMedian, 1e9 / rowsMedian, kafkaMedian / rowsMedian);
    if (sink == 42) {
      System.out.println();
    }
  }

  /** Nanoseconds to convert every value once, and a checksum that keeps the work alive. */
  private static long[] time(Converter converter, List<byte[]> values) {
    long sum = 0;
    long start = System.nanoTime();
    for (byte[] value : values) {
      sum += ((Struct) converter.toConnectData("bench", value).value()).getInt64("id");
    }
    return new long[] {System.nanoTime() - start, sum};
  }

  /** As {@link #time}, reading each record's row as our sink does, without a {@code Struct}. */
  private static long[] timeRows(Converter converter, List<byte[]> values, Field id) {
    long sum = 0;
    long start = System.nanoTime();
    for (byte[] value : values) {
      Object converted = converter.toConnectData("bench", value).value();
      sum +=
          converted instanceof DecodedStruct row
              ? (Long) row.decoded(id)
              : ((Struct) converted).getInt64("id");
    }
    return new long[] {System.nanoTime() - start, sum};
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
