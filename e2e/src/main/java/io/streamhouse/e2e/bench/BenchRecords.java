package io.streamhouse.e2e.bench;

import io.streamhouse.e2e.ConnectJson;
import io.streamhouse.e2e.JsonText;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The records every drain benchmark produces: an order as a change stream of a shop would carry it,
 * 11 leaf columns with a nested struct, an array, unicode text, a Connect timestamp and optional
 * fields that are often null, as a Connect {@code JsonConverter} with {@code schemas.enable=true}
 * reads it (every record carries its schema).
 *
 * <pre>
 * id            int64, required
 * table         string, required (the routing field of the fan-out; a constant elsewhere)
 * customer      struct, required: name string, city string (both required)
 * tags          array of string, required: 0-4 distinct tags from a vocabulary of 8
 * note          string, optional: 40-120 code points of accented Latin and CJK words and one
 *               emoji; null in about 10 %
 * amount        double, required
 * quantity      int32, optional: null in about 5 %
 * discount_pct  int32, optional: null in about 70 %
 * status        string, required: one of 5
 * created_at    int64 org.apache.kafka.connect.data.Timestamp, required
 * </pre>
 *
 * <p>One generator per produced stream, seeded: the same seed and the same calls give the same
 * records, so runs are repeatable. Not thread-safe.
 */
public final class BenchRecords {
  /** The seed of every benchmark's records. */
  public static final long SEED = 42;

  static final ConnectJson.StructSchema SCHEMA =
      ConnectJson.struct("io.streamhouse.bench.Order")
          .field("id", "int64", false)
          .field("table", "string", false)
          .field(
              "customer",
              ConnectJson.struct("io.streamhouse.bench.Customer")
                  .field("name", "string", false)
                  .field("city", "string", false)
                  .toMap())
          .field(
              "tags",
              ordered("type", "array", "items", ordered("type", "string", "optional", false))
                  .with("optional", false))
          .field("note", "string", true)
          .field("amount", "double", false)
          .field("quantity", "int32", true)
          .field("discount_pct", "int32", true)
          .field("status", "string", false)
          .field(
              "created_at",
              ordered("type", "int64", "optional", false)
                  .with("name", "org.apache.kafka.connect.data.Timestamp")
                  .with("version", 1));

  /** The schema as JSON, written once: each record's envelope is this and its payload. */
  private static final String SCHEMA_JSON = JsonText.of(SCHEMA.toMap());

  /** 2026-01-01T00:00:00Z: the first record's created_at; each next one is 100 ms later. */
  private static final long EPOCH_MS = 1_767_225_600_000L;

  private static final String[] FIRST_NAMES = {
    "Anna", "José", "Zoë", "Łukasz", "Björn", "Chloé", "Mateus", "Ingrid", "Søren", "Amélie",
    "Dmitri", "Noémie", "Jürgen", "Ana", "Siobhán", "Ömer", "Yuki", "Wei", "Priya", "Kwame"
  };
  private static final String[] LAST_NAMES = {
    "García",
    "Müller",
    "Nowak",
    "Dubois",
    "Øvergaard",
    "Rossi",
    "Fernández",
    "Kowalczyk",
    "Núñez",
    "Schäfer",
    "Lefèvre",
    "Sørensen",
    "Yılmaz",
    "O'Brien",
    "Tanaka",
    "王",
    "李",
    "Okafor",
    "Silva"
  };
  private static final String[] CITIES = {
    "Zürich",
    "São Paulo",
    "Kraków",
    "Montréal",
    "Reykjavík",
    "München",
    "Málaga",
    "Lyon",
    "Berlin",
    "Göteborg",
    "İstanbul",
    "東京",
    "大阪",
    "北京",
    "Genève",
    "Köln",
    "Porto",
    "Oslo"
  };
  private static final String[] TAGS = {
    "gift", "express", "fragile", "b2b", "promo", "returning", "bulk", "eco"
  };
  private static final String[] STATUSES = {"NEW", "PAID", "SHIPPED", "DELIVERED", "CANCELLED"};
  private static final String[] LATIN_WORDS = {
    "livraison",
    "prévue",
    "après",
    "façade",
    "crème",
    "brûlée",
    "Straße",
    "Größe",
    "über",
    "año",
    "mañana",
    "señal",
    "coração",
    "ação",
    "naïve",
    "déjà",
    "vu",
    "smörgåsbord",
    "kötü",
    "żółw",
    "čaj",
    "résumé",
    "piñata",
    "Ærø",
    "fjørd",
    "entrée",
    "à",
    "la",
    "porte",
    "bitte",
    "klingeln",
    "por",
    "favor",
    "merci"
  };
  private static final String[] CJK_WORDS = {
    "配送", "予定", "注文", "確認", "ありがとう", "お届け", "北京市", "朝阳区", "请", "放在", "门口", "谢谢", "포장", "부탁", "드립니다",
    "東京都", "渋谷区"
  };
  private static final String[] EMOJIS = {"🎁", "📦", "🚚", "🛒", "🙏", "😀", "🔥", "🌟"};

  private final Random random;
  private long payloadBytes;
  private long envelopeBytes;
  private long count;

  public BenchRecords(long seed) {
    this.random = new Random(seed);
  }

  /** With {@link #SEED}. */
  public BenchRecords() {
    this(SEED);
  }

  /** The payload of the next record (field order as in the schema); {@code table} as given. */
  public Map<String, Object> nextPayload(long id, String table) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("id", id);
    p.put("table", table);
    Map<String, Object> customer = new LinkedHashMap<>();
    customer.put(
        "name",
        FIRST_NAMES[random.nextInt(FIRST_NAMES.length)]
            + " "
            + LAST_NAMES[random.nextInt(LAST_NAMES.length)]);
    customer.put("city", CITIES[random.nextInt(CITIES.length)]);
    p.put("customer", customer);
    p.put("tags", tags());
    p.put("note", random.nextInt(10) == 0 ? null : note());
    p.put("amount", Math.round(random.nextDouble() * 100_000) / 100.0);
    p.put("quantity", random.nextInt(20) == 0 ? null : 1 + random.nextInt(20));
    p.put("discount_pct", random.nextInt(10) < 7 ? null : 5 * (1 + random.nextInt(10)));
    p.put("status", STATUSES[random.nextInt(STATUSES.length)]);
    p.put("created_at", EPOCH_MS + id * 100);
    return p;
  }

  /**
   * The next record's value as a schema-enabled {@code JsonConverter} reads it: {@code {"schema":
   * .., "payload": ..}}; counts its bytes for {@link #meanPayloadBytes()}.
   */
  public String nextJson(long id, String table) {
    String payload = JsonText.of(nextPayload(id, table));
    String json = "{\"schema\":" + SCHEMA_JSON + ",\"payload\":" + payload + "}";
    payloadBytes += payload.getBytes(StandardCharsets.UTF_8).length;
    envelopeBytes += json.getBytes(StandardCharsets.UTF_8).length;
    count++;
    return json;
  }

  /** Mean UTF-8 bytes of the payloads {@link #nextJson} made so far (without the schema). */
  public double meanPayloadBytes() {
    return count == 0 ? 0 : (double) payloadBytes / count;
  }

  /** Mean UTF-8 bytes of the whole record values {@link #nextJson} made so far, schema included. */
  public double meanRecordBytes() {
    return count == 0 ? 0 : (double) envelopeBytes / count;
  }

  /** UTF-8 bytes of the payloads {@link #nextJson} made so far. */
  public long payloadBytes() {
    return payloadBytes;
  }

  /** A schema map whose keys keep their order (Map.of's order changes from JVM to JVM). */
  private static Ordered ordered(String k1, Object v1, String k2, Object v2) {
    return new Ordered().with(k1, v1).with(k2, v2);
  }

  private static final class Ordered extends LinkedHashMap<String, Object> {
    private static final long serialVersionUID = 1L;

    Ordered with(String key, Object value) {
      put(key, value);
      return this;
    }
  }

  private List<String> tags() {
    int n = random.nextInt(5);
    List<String> tags = new ArrayList<>(n);
    while (tags.size() < n) {
      String tag = TAGS[random.nextInt(TAGS.length)];
      if (!tags.contains(tag)) {
        tags.add(tag);
      }
    }
    return tags;
  }

  /**
   * 40-120 code points: Latin words with accents and CJK words (about one in three), one emoji at a
   * random place.
   */
  private String note() {
    int length = 40 + random.nextInt(81);
    StringBuilder text = new StringBuilder();
    while (text.codePointCount(0, text.length()) < length) {
      if (!text.isEmpty()) {
        text.append(' ');
      }
      text.append(
          random.nextInt(3) == 0
              ? CJK_WORDS[random.nextInt(CJK_WORDS.length)]
              : LATIN_WORDS[random.nextInt(LATIN_WORDS.length)]);
    }
    int[] codePoints = text.codePoints().limit(length - 1).toArray();
    int at = random.nextInt(codePoints.length + 1);
    return new String(codePoints, 0, at)
        + EMOJIS[random.nextInt(EMOJIS.length)]
        + new String(codePoints, at, codePoints.length - at);
  }
}
