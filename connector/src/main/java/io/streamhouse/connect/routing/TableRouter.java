package io.streamhouse.connect.routing;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.streamhouse.connect.config.RouteSettings;
import io.streamhouse.connect.config.TableNames;
import io.streamhouse.connect.decode.ChildValues;
import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.TableId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Decides which tables a record goes to: every route that takes its topic (and whose {@code match},
 * if any, takes the record) gives one table.
 */
public final class TableRouter {
  /** A destination: the table and the route that chose it. */
  public record Destination(TableId table, RouteSettings route) {}

  private final List<RouteSettings> routes;
  private final Map<String, List<RouteSettings>> routesByTopic = new HashMap<>();

  /** Per topic, its destinations when every route taking it names its table statically. */
  private final Map<String, Optional<List<Destination>>> staticDestinations = new HashMap<>();

  private final Function<String, Optional<List<Destination>>> staticResolver = this::resolveStatic;

  /**
   * Per route taking its table from a field, the tables of field values seen before: a record's
   * table is then a cache lookup, not a sanitizing and an allow-list match per record.
   */
  private final Map<String, Cache<String, TableId>> tablesByFieldValue = new HashMap<>();

  /** Field values remembered per route; a route fanning out wider resolves the others anew. */
  static final int REMEMBERED_FIELD_VALUES = 10_000;

  public TableRouter(List<RouteSettings> routes) {
    this.routes = List.copyOf(routes);
  }

  /**
   * The destinations of {@code record}.
   *
   * <p>Empty when routes take the topic but the {@code match} of each leaves the record out: it is
   * not written, as the Apache Iceberg sink drops a record no table's route-regex matches.
   *
   * @throws RecordConversionException if no route takes the topic, or a dynamic route's field is
   *     missing or names a table outside the allow-list
   */
  public List<Destination> route(SinkRecord record) throws RecordConversionException {
    Optional<List<Destination>> known = staticDestinations(record.topic());
    if (known.isPresent()) {
      return known.get();
    }
    List<RouteSettings> matching = routesOf(record.topic());
    if (matching.isEmpty()) {
      throw new RecordConversionException("<topic>", "no route takes topic " + record.topic());
    }
    List<Destination> destinations = new ArrayList<>(matching.size());
    for (RouteSettings route : matching) {
      if (route.match().isEmpty() || takes(route.match().get(), record)) {
        destinations.add(new Destination(table(route, record), route));
      }
    }
    return destinations;
  }

  /**
   * The destinations of every record of {@code topic}, when they do not depend on the record: every
   * route taking the topic names its table (or takes it from the topic). Empty when a route takes
   * the table from a record field, or when no route takes the topic.
   */
  public Optional<List<Destination>> staticDestinations(String topic) {
    // A function made once: a lambda made here would be a new object per record.
    return staticDestinations.computeIfAbsent(topic, staticResolver);
  }

  private Optional<List<Destination>> resolveStatic(String t) {
    List<RouteSettings> matching = routesOf(t);
    if (matching.isEmpty()
        || matching.stream().anyMatch(r -> r.tableField().isPresent() || r.match().isPresent())) {
      return Optional.empty();
    }
    List<Destination> destinations = new ArrayList<>(matching.size());
    for (RouteSettings route : matching) {
      try {
        destinations.add(
            new Destination(
                TableNames.resolve(route.catalog(), route.table(), t, route.namespace()), route));
      } catch (IllegalArgumentException invalidName) {
        return Optional.empty(); // route() resolves it again and fails the records of this topic
      }
    }
    return Optional.of(List.copyOf(destinations));
  }

  private List<RouteSettings> routesOf(String topic) {
    return routesByTopic.computeIfAbsent(
        topic, t -> routes.stream().filter(r -> r.takes(t)).toList());
  }

  private TableId table(RouteSettings route, SinkRecord record) throws RecordConversionException {
    if (route.tableField().isEmpty()) {
      return TableNames.resolve(route.catalog(), route.table(), record.topic(), route.namespace());
    }
    String field = route.tableField().get();
    Object raw = fieldValue(record.value(), field);
    if (raw == null) {
      throw new RecordConversionException(
          field,
          "route "
              + route.name()
              + ": field '"
              + field
              + "' that names the table is missing or null");
    }
    String value = raw.toString();
    Cache<String, TableId> known =
        tablesByFieldValue.computeIfAbsent(route.name(), r -> rememberedTables());
    TableId table = known.getIfPresent(value);
    if (table == null) {
      table = tableNamed(route, field, value);
      known.put(value, table);
    }
    return table;
  }

  /** Evicting on the task thread that adds, not on a pool's. */
  private static Cache<String, TableId> rememberedTables() {
    return Caffeine.newBuilder()
        .maximumSize(REMEMBERED_FIELD_VALUES)
        .executor(Runnable::run)
        .build();
  }

  /** The table a field's value names, if the route allows it. */
  private static TableId tableNamed(RouteSettings route, String field, String value)
      throws RecordConversionException {
    String name =
        route.tableFieldQualified()
            ? TableNames.sanitizeQualified(value)
            : TableNames.sanitize(value);
    if (route.tableAllowRegex().isEmpty()
        || !route.tableAllowRegex().get().matcher(name).matches()) {
      throw new RecordConversionException(
          field,
          "route "
              + route.name()
              + ": table '"
              + name
              + "' (from field '"
              + field
              + "') is not allowed by route."
              + route.name()
              + ".table.allow-regex");
    }
    try {
      return TableNames.parse(route.catalog(), name, route.namespace());
    } catch (IllegalArgumentException e) {
      throw new RecordConversionException(field, "route " + route.name() + ": " + e.getMessage());
    }
  }

  private static boolean takes(RouteSettings.FieldMatch match, SinkRecord record) {
    Object value = fieldValue(record.value(), match.field());
    return value != null && match.regex().matcher(value.toString()).matches();
  }

  /**
   * The value of top-level field {@code field}; when there is none and the name has dots, the value
   * at that path through nested structs and maps (as the Apache Iceberg sink reads its
   * route-field). A struct a converter decoded is read without making its {@code Struct}, which the
   * table writer can skip.
   */
  static Object fieldValue(Object value, String field) {
    Object top = ChildValues.getDecoded(value, field);
    if (top != null || field.indexOf('.') < 0) {
      return top;
    }
    Object current = value;
    for (String part : field.split("\\.", -1)) {
      current = ChildValues.getDecoded(current, part);
      if (current == null) {
        return null;
      }
    }
    return current;
  }
}
