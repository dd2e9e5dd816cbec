package io.streamhouse.connect.commit.coordinator;

import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.TableId;
import java.util.List;
import java.util.Map;

/**
 * Whether the tables of an atomic round, staged with their final decisions, may be published; when
 * not, the round waits: nothing is published, the batches the tables would apply are offered again,
 * and the decisions no later round changes (rejected, already present) go out.
 */
interface RoundGuard {
  RoundGuard ALWAYS = (commitId, tables, staged) -> true;

  boolean publishes(
      long commitId, Map<TableId, List<OfferedBatch>> tables, Map<TableId, CommitOutcome> staged);
}
