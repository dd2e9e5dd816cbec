package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.streamhouse.connect.protocol.BatchPlan;
import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.table.FileBudget;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * A table's commit staged for an atomic round: planned and applied like a per-table commit, but
 * invisible until the round is published; abandoned, it leaves no manifest behind and the batch's
 * data files (still offered) alone.
 */
class StagedCommitsTest extends AppendTableFixture {
  @Test
  void aStagedCommitChangesNothingVisibleAndAnAbandonedOneLeavesNoManifests() throws Exception {
    try (IcebergFormat format = format()) {
      commitRounds(format, 1);
      Table before = format.table(table);
      long current = before.currentSnapshot().snapshotId();
      Set<String> metadataFiles = files(before.location() + "/metadata");
      PreparedFiles files = write(format, 10, 20, new FileBudget(64, 64L << 20));
      StagedCommits staged = new StagedCommits();

      CommitOutcome outcome =
          IcebergCommit.run(format, table, 2L, List.of(batch("b1", 10, 20, files)), true, staged);

      assertThat(outcome.decisions()).containsEntry("b1", BatchPlan.Decision.APPLY);
      assertThat(outcome.snapshotId()).isPresent().isNotEqualTo(current);
      assertThat(staged.isEmpty()).isFalse();
      Table after = format.table(table);
      assertThat(after.currentSnapshot().snapshotId()).as("nothing visible").isEqualTo(current);
      assertThat(format.watermarks(table).asMap()).containsEntry(TP0, 10L);
      assertThat(files(after.location() + "/metadata"))
          .as("the staged snapshot's manifest list and manifest")
          .hasSizeGreaterThan(metadataFiles.size());
      Set<String> dataFiles = files(after.location() + "/data");

      staged.discard();

      assertThat(files(after.location() + "/metadata")).isEqualTo(metadataFiles);
      assertThat(files(after.location() + "/data")).as("the batch's files").isEqualTo(dataFiles);
      assertThat(staged.isEmpty()).isTrue();
    }
  }

  /**
   * Nessie makes a new snapshot's schema the table's current one: a snapshot staged before another
   * writer's schema change must not take that change back; the publish fails instead.
   */
  @Test
  void aStagedSnapshotIsNotPublishedOverASchemaChangeMadeMeanwhile() throws Exception {
    try (IcebergFormat format = format()) {
      commitRounds(format, 1);
      PreparedFiles files = write(format, 10, 20, new FileBudget(64, 64L << 20));
      StagedCommits staged = new StagedCommits();
      IcebergCommit.run(format, table, 2L, List.of(batch("b1", 10, 20, files)), true, staged);

      format.table(table).updateSchema().addColumn("note", Types.StringType.get()).commit();

      assertThatThrownBy(() -> PendingSchemaCommitTest.publish(format, staged))
          .isInstanceOf(CommitFailedException.class)
          .hasMessageContaining("current schema changed");
      Table after = format.table(table);
      assertThat(after.schema().findField("note")).isNotNull();
      assertThat(format.watermarks(table).asMap()).containsEntry(TP0, 10L);
    }
  }

  private static Set<String> files(String location) throws IOException {
    Path dir = location.startsWith("file:") ? Path.of(URI.create(location)) : Path.of(location);
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(Files::isRegularFile).map(Path::toString).collect(Collectors.toSet());
    }
  }
}
