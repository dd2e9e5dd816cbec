package io.streamhouse.connect.table.iceberg;

import java.util.Locale;
import java.util.Optional;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.LocationUtil;

/**
 * Whether a data file offered for commit is one of the table's own: under the table's data location
 * (no {@code .} or {@code ..} segment to climb out of it) and in the table's write format. Its
 * partition spec was checked when it was decoded. Public for the files reported by the Apache
 * Iceberg sink, which the take-over from it checks the same way (package {@code migration}).
 */
public final class IcebergFileCheck {
  private final String dataPrefix;
  private final FileFormat format;

  public IcebergFileCheck(Table table) {
    this.dataPrefix = normalized(dataLocation(table)) + "/";
    this.format =
        FileFormat.fromString(
            table
                .properties()
                .getOrDefault(
                    TableProperties.DEFAULT_FILE_FORMAT,
                    TableProperties.DEFAULT_FILE_FORMAT_DEFAULT));
  }

  /**
   * Where the table's location provider puts data files: {@code write.data.path}, else {@code
   * <location>/data}. The deprecated older names of the property still steer Iceberg's location
   * provider, so tables written by older engines are read by them too.
   */
  @SuppressWarnings("deprecation")
  static String dataLocation(Table table) {
    String configured = table.properties().get(TableProperties.WRITE_DATA_LOCATION);
    if (configured == null) {
      configured = table.properties().get(TableProperties.OBJECT_STORE_PATH);
    }
    if (configured == null) {
      configured = table.properties().get(TableProperties.WRITE_FOLDER_STORAGE_LOCATION);
    }
    return LocationUtil.stripTrailingSlash(
        configured != null ? configured : table.location() + "/data");
  }

  /**
   * A location in one spelling: {@code file:/x}, {@code file:///x} and {@code /x} are the same
   * local file (Hadoop's paths print the first, catalogs may store the second).
   */
  public static String normalized(String location) {
    if (location == null) {
      return null;
    }
    String l = location.startsWith("file:") ? location.substring("file:".length()) : location;
    if (l.startsWith("/")) {
      int slashes = 0;
      while (slashes < l.length() && l.charAt(slashes) == '/') {
        slashes++;
      }
      return "file:/" + l.substring(slashes);
    }
    return l.equals(location) ? location : "file:" + l;
  }

  /** Why {@code file} is not one of the table's own data files, or empty. */
  public Optional<String> problem(ContentFile<?> file) {
    String location = normalized(file.location());
    if (location == null || !location.startsWith(dataPrefix)) {
      return Optional.of("is not under the table's data location " + dataPrefix);
    }
    for (String segment : location.substring(dataPrefix.length()).split("/", -1)) {
      if (segment.isEmpty()
          || segment.equals(".")
          || segment.equals("..")
          || segment.indexOf('\\') >= 0) {
        return Optional.of(
            "has a path segment '" + segment + "' below the table's data location " + dataPrefix);
      }
    }
    if (file.format() != format) {
      return Optional.of(
          "is "
              + file.format().name().toLowerCase(Locale.ROOT)
              + " but the table writes "
              + format.name().toLowerCase(Locale.ROOT));
    }
    if (file.recordCount() < 0 || file.fileSizeInBytes() < 0) {
      return Optional.of("has a negative record count or size");
    }
    return Optional.empty();
  }
}
