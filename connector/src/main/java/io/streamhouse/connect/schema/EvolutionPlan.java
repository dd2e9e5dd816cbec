package io.streamhouse.connect.schema;

import java.util.List;
import java.util.Optional;

/** What the planner decided: the ordered changes to apply, or why the record cannot be taken. */
public record EvolutionPlan(List<SchemaChange> changes, Optional<Rejection> rejection) {
  /** A record schema the table cannot follow: the field concerned and the reason. */
  public record Rejection(String field, String reason) {}

  public EvolutionPlan {
    changes = List.copyOf(changes);
  }

  static EvolutionPlan of(List<SchemaChange> changes) {
    return new EvolutionPlan(changes, Optional.empty());
  }

  static EvolutionPlan rejected(String field, String reason) {
    return new EvolutionPlan(List.of(), Optional.of(new Rejection(field, reason)));
  }

  public boolean isRejected() {
    return rejection.isPresent();
  }

  /** True when the table already takes records of this schema. */
  public boolean isEmpty() {
    return changes.isEmpty() && rejection.isEmpty();
  }
}
