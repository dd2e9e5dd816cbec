package io.streamhouse.connect.config;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;

/**
 * The keys of one named catalog, {@code catalog.<name>.*}. Every key under the prefix, declared
 * here or not, is passed to the catalog as a property without the prefix (for example {@code
 * catalog.lake.io-impl}); the declared ones are validated, and secrets are PASSWORDs.
 */
public final class CatalogConfigDef {
  public static final String PREFIX = "catalog.";
  static final String GROUP = "Catalog <name>";

  public static final String FORMAT = "format";
  public static final String TYPE = "type";
  public static final String URI = "uri";
  public static final String WAREHOUSE = "warehouse";
  public static final String CATALOG_IMPL = "catalog-impl";
  public static final String CREDENTIAL = "credential";
  public static final String TOKEN = "token";
  public static final String JDBC_USER = "jdbc.user";
  public static final String JDBC_PASSWORD = "jdbc.password";
  public static final String S3_SECRET_ACCESS_KEY = "s3.secret-access-key";
  public static final String S3_SECRET_KEY = "s3.secret-key";
  public static final String COMMIT_ATOMIC = "commit.atomic";

  private CatalogConfigDef() {}

  /** The keys of catalog {@code name}, fully prefixed. {@code <name>} gives the template. */
  public static ConfigDef forName(String name) {
    String p = PREFIX + name + ".";
    String group = GROUP.replace("<name>", name);
    int order = 0;
    return new ConfigDef()
        .define(
            p + FORMAT,
            Type.STRING,
            TableFormatKind.ICEBERG.configValue(),
            ConfigWords.oneOf(TableFormatKind.class),
            Importance.HIGH,
            "Table format of the catalog's tables.",
            group,
            ++order,
            Width.SHORT,
            "Format")
        .define(
            p + TYPE,
            Type.STRING,
            "jdbc",
            ConfigWords.oneOf("rest", "jdbc", "hadoop", "custom", "filesystem"),
            Importance.HIGH,
            "Catalog implementation. Iceberg: rest (production), jdbc (the embedded default: a SQLite "
                + "file and a local warehouse), hadoop, or custom (set catalog-impl). Paimon: filesystem, "
                + "jdbc, rest.",
            group,
            ++order,
            Width.SHORT,
            "Type")
        .define(
            p + URI,
            Type.STRING,
            null,
            Importance.HIGH,
            "Catalog URI: the REST endpoint, or the JDBC URL (jdbc:sqlite:/path/catalog.db).",
            group,
            ++order,
            Width.LONG,
            "URI")
        .define(
            p + WAREHOUSE,
            Type.STRING,
            null,
            Importance.HIGH,
            "Warehouse location: a local path or a file system URI (s3://bucket/path).",
            group,
            ++order,
            Width.LONG,
            "Warehouse")
        .define(
            p + CATALOG_IMPL,
            Type.STRING,
            null,
            Importance.LOW,
            "Class of a custom Iceberg catalog (type=custom).",
            group,
            ++order,
            Width.LONG,
            "Catalog class")
        .define(
            p + COMMIT_ATOMIC,
            Type.BOOLEAN,
            false,
            Importance.MEDIUM,
            "Commit every table of a round in one catalog transaction, so that readers see all"
                + " tables at the same round (the REST catalog's multi-table commit). Iceberg REST"
                + " catalogs whose server applies it atomically only: Nessie, Apache Polaris,"
                + " Lakekeeper. See docs/atomic-commits.md.",
            group,
            ++order,
            Width.SHORT,
            "Atomic commits")
        .define(
            p + CREDENTIAL,
            Type.PASSWORD,
            null,
            Importance.MEDIUM,
            "OAuth2 client credential (client_id:client_secret) for an Iceberg REST catalog.",
            group,
            ++order,
            Width.MEDIUM,
            "Credential")
        .define(
            p + TOKEN,
            Type.PASSWORD,
            null,
            Importance.MEDIUM,
            "Bearer token for a REST catalog.",
            group,
            ++order,
            Width.MEDIUM,
            "Token")
        .define(
            p + JDBC_USER,
            Type.STRING,
            null,
            Importance.LOW,
            "User of a JDBC catalog database.",
            group,
            ++order,
            Width.SHORT,
            "JDBC user")
        .define(
            p + JDBC_PASSWORD,
            Type.PASSWORD,
            null,
            Importance.LOW,
            "Password of a JDBC catalog database.",
            group,
            ++order,
            Width.SHORT,
            "JDBC password")
        .define(
            p + S3_SECRET_ACCESS_KEY,
            Type.PASSWORD,
            null,
            Importance.LOW,
            "S3 secret access key of an Iceberg warehouse (with s3.access-key-id; Iceberg's S3FileIO).",
            group,
            ++order,
            Width.MEDIUM,
            "S3 secret access key")
        .define(
            p + S3_SECRET_KEY,
            Type.PASSWORD,
            null,
            Importance.LOW,
            "S3 secret key of a Paimon warehouse (with s3.access-key; Paimon's S3 file IO).",
            group,
            ++order,
            Width.MEDIUM,
            "S3 secret key");
  }
}
