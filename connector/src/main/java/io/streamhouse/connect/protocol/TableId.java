package io.streamhouse.connect.protocol;

import java.util.List;

/** A table in a named catalog: {@code catalog}, namespace levels and name, all validated. */
public record TableId(String catalog, List<String> namespace, String name)
    implements Comparable<TableId> {
  public TableId {
    namespace = List.copyOf(namespace);
  }

  /** {@code ns1.ns2.table}, without the catalog. */
  public String qualifiedName() {
    return namespace.isEmpty() ? name : String.join(".", namespace) + "." + name;
  }

  @Override
  public int compareTo(TableId other) {
    return toString().compareTo(other.toString());
  }

  @Override
  public String toString() {
    return catalog + ":" + qualifiedName();
  }
}
