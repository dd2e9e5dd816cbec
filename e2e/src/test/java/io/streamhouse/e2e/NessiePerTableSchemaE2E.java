package io.streamhouse.e2e;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Schema changes on a Nessie catalog without round-atomic commits: the records and schema changes
 * of {@link NessieAtomicCommitsE2E} (two tasks, 20 tables; halfway, records start to carry one of
 * two new fields), each table committed on its own. Nessie makes a new snapshot's schema the
 * table's current one, so a task that committed a new column while the coordinator's snapshot of
 * the table was on its way lost the column, and the values written under it, to that snapshot. On a
 * REST catalog the coordinator commits the schema changes, just before the snapshots that need
 * them; checked: every table holds each record once, with its new field's value.
 */
@ExtendWith({NeedsJava21.class, LocalStackExtension.class})
class NessiePerTableSchemaE2E {

  @Test
  void noValueOfANewColumnIsLostToASnapshotPlannedBeforeIt(LocalStack stack) throws Exception {
    try (NessieServer nessie = E2eSettings.nessieInMemory(stack)) {
      stack.createTopic(NessieAtomicCommitsE2E.TOPIC, NessieAtomicCommitsE2E.PARTITIONS, Map.of());
      stack.createTopic(NessieAtomicCommitsE2E.CHANGES, 2, Map.of());
      ConnectorExample atomic = NessieAtomicCommitsE2E.config(stack, nessie);
      Map<String, String> config = new java.util.HashMap<>(atomic.config());
      config.put("catalog.lake.commit.atomic", "false");
      config.put("control.topic", "ctl-per-table");
      ConnectorExample sink = new ConnectorExample(atomic.name(), config);
      Map<String, Set<Long>> produced = new ConcurrentHashMap<>();
      ConnectWorker second = stack.addWorker();
      try (IcebergTables tables =
          IcebergTables.rest(nessie.icebergUri(), NessieRounds.fileIo(nessie))) {
        stack.connect().putConfig(sink.name(), sink.config());
        NessieAtomicCommitsE2E.produce(stack, produced, new SampleCustomers(11, 1_000, 0.2));
        NessieAtomicCommitsE2E.assertEveryRecordOnceWithItsNewField(
            stack, tables, sink.name(), produced, List.of("none"));
      } finally {
        second.close();
      }
      stack.connect().delete(sink.name());
    }
  }
}
