package io.streamhouse.connect.table;

import io.streamhouse.connect.errors.RecordConversionException;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.schema.EvolutionMode;
import io.streamhouse.connect.schema.EvolutionPlan;
import io.streamhouse.connect.schema.EvolutionPlanner;
import io.streamhouse.connect.schema.FieldType;
import io.streamhouse.connect.schema.SchemaChange;
import io.streamhouse.connect.schema.TableColumns;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a format applies schema evolution to a table that other tasks may change at the same time:
 * plan against the table's current columns, apply, and when a concurrent change wins, plan again
 * ({@link Retries}; usually finding nothing left to do). The format supplies its columns and its
 * way to apply.
 */
public final class SchemaEvolutionLoop {
  private static final Logger LOG = LoggerFactory.getLogger(SchemaEvolutionLoop.class);
  private static final int MAX_ATTEMPTS = 10;

  /** Applies planned changes to the table in one schema update. */
  @FunctionalInterface
  public interface Applier {
    void apply(List<SchemaChange> changes) throws Exception;
  }

  private SchemaEvolutionLoop() {}

  /**
   * @throws RecordConversionException if the table cannot follow {@code row}
   */
  public static void run(
      String connector,
      TableId id,
      Supplier<TableColumns> current,
      FieldType.Struct row,
      EvolutionMode mode,
      Applier applier)
      throws RecordConversionException {
    EvolutionPlan plan;
    try {
      plan =
          Retries.immediately(
              MAX_ATTEMPTS,
              ConcurrentChange.class,
              attempt -> {
                EvolutionPlan planned = EvolutionPlanner.plan(current.get(), row, mode);
                if (planned.isRejected() || planned.changes().isEmpty()) {
                  return planned; // nothing to apply; empty: another task applied it first
                }
                try {
                  applier.apply(planned.changes());
                } catch (Exception concurrent) {
                  LOG.info(
                      "A schema change of {} met a concurrent one (attempt {} of {}): {}",
                      id,
                      attempt,
                      MAX_ATTEMPTS,
                      concurrent.toString());
                  throw new ConcurrentChange(concurrent);
                }
                LOG.info("Evolved the schema of {}: {}", id, planned.changes());
                return planned;
              });
    } catch (ConcurrentChange exhausted) {
      throw new IllegalStateException(
          "Connector "
              + connector
              + ": cannot change the schema of "
              + id
              + " after "
              + MAX_ATTEMPTS
              + " attempts",
          exhausted.getCause());
    }
    if (plan.isRejected()) {
      throw new RecordConversionException(
          plan.rejection().get().field(), plan.rejection().get().reason());
    }
  }

  /** The schema update failed, as when another one got in first: planned again. */
  private static final class ConcurrentChange extends Exception {
    private static final long serialVersionUID = 1L;

    ConcurrentChange(Exception cause) {
      super(cause.toString(), cause);
    }
  }
}
