package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.protocol.PreparedFiles;
import io.streamhouse.connect.table.FileBudget;
import io.streamhouse.connect.table.TableWriter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionKey;
import org.junit.jupiter.api.Test;

/**
 * The task's file budget over the partitions of an Iceberg append table: when a partition opens its
 * file or holds its rows, when the budget closes files early, and that every row lands once.
 */
class IcebergFileBudgetTest extends AppendTableFixture {
  /**
   * Creates the table, sets its Parquet pages to 1 KB (an open file's buffers small beside the
   * budget) and opens a writer on it under {@code budget}.
   */
  private TableWriter writerWithSmallPages(IcebergFormat format, FileBudget budget)
      throws Exception {
    write(format, 0, 1, new FileBudget(8, 64L << 20)); // creates the table
    format.table(table).updateProperties().set("write.parquet.page-size-bytes", "1024").commit();
    return format.openWriter(table, config.routes().get(0), record(0, 0), budget).orElseThrow();
  }

  /**
   * Records arriving round-robin over many partitions (as over many tables): with the bytes to hold
   * them, one file per partition; with a tight budget, files of a fair share of it, never one per
   * record, and every row kept.
   */
  @Test
  void roundRobinOverPartitionsWritesFilesOfAShareOfTheBudgetNotOnePerRecord() throws Exception {
    Map<String, String> props = new HashMap<>(config.originalsStrings());
    props.put(
        "route.orders.partition-by", "bucket(16,id)"); // consecutive ids take turns over 16 files
    config = new StreamhouseSinkConfig(props);
    try (IcebergFormat format = format()) {
      FileBudget roomy = new FileBudget(1_000, 64L << 20);
      PreparedFiles all = write(format, 0, 2_000, roomy);
      assertThat(all.files()).isEqualTo(16);
      assertThat(roomy.evictions()).isZero();
      format.commit(table, 1L, List.of(batch("roomy", 0, 2_000, all)), true);

      FileBudget tight =
          new FileBudget(1_000, 16 * 36 * 1024 + 100 * 1024); // 16 files' buffers + ~100 KB of rows
      PreparedFiles cut = write(format, 2_000, 20_000, tight);
      assertThat(tight.evictions()).isPositive();
      assertThat(cut.files()).as("18,000 rows over 16 partitions").isBetween(17, 18_000 / 50);
      format.commit(table, 2L, List.of(batch("tight", 2_000, 20_000, cut)), true);
      assertThat(ids(format)).hasSize(20_000).doesNotHaveDuplicates();
    }
  }

  /**
   * A partition that takes the task's rows turns into an open file at its first run of rows, takes
   * its rows in runs and rolls at the target size: the budget holds the open file's buffers and the
   * rows since it last rolled, and every row lands once.
   */
  @Test
  void aPartitionTakingTheTasksRowsOpensItsFileAtItsFirstRunAndRollsAtTheTargetSize()
      throws Exception {
    Map<String, String> props = new HashMap<>(config.originalsStrings());
    props.put("route.orders.partition-by", "");
    props.put("route.orders.target-file-size-bytes", "4096");
    config = new StreamhouseSinkConfig(props);
    try (IcebergFormat format = format()) {
      FileBudget budget = new FileBudget(8, 2L << 20); // an eighth: 256 KB of held rows
      TableWriter writer = writerWithSmallPages(format, budget);
      long openFileFloor = 64 << 10; // an open file's buffers: 64 KB and a page per column
      long most = 0;
      for (long o = 0; o < 40_000; o++) {
        writer.write(record(o, o));
        most = Math.max(most, budget.bufferedBytes());
        if (o == 300) {
          assertThat(budget.bufferedBytes())
              .as("an open file after the first run of 256 rows")
              .isGreaterThanOrEqualTo(openFileFloor);
        }
      }
      assertThat(most)
          .as("an open file's buffers and the rows since it last rolled, not 4 MB of rows")
          .isLessThan(512L << 10);
      assertThat(budget.evictions()).isZero();
      PreparedFiles files = writer.prepare();
      assertThat(files.files()).as("rolled at the target size").isGreaterThan(2);
      format.commit(table, 1L, List.of(batch("hot", 0, 40_000, files)), true);
      assertThat(ids(format)).hasSize(40_000).doesNotHaveDuplicates();
    }
  }

  /**
   * Of a task's partitions, one taking at least an eighth of the rows written since it began opens
   * its file at its first run; one taking less (fan-out) holds its rows, costing no file's buffers,
   * until it holds an eighth of the budget, then opens its file, and in the next round it opens its
   * file at its first run though its share is still small. Every row lands once.
   */
  @Test
  void aPartitionOpensItsFileAtItsFirstRunWhenHotByShareOrOpenInTheLastRound() throws Exception {
    Map<String, String> props = new HashMap<>(config.originalsStrings());
    props.put("route.orders.partition-by", "customer");
    props.put(
        "route.orders.target-file-size-bytes", "4096"); // the hot partition's charge stays low
    config = new StreamhouseSinkConfig(props);
    try (IcebergFormat format = format()) {
      FileBudget budget = new FileBudget(8, 4L << 20); // an eighth: 512 KB of held rows
      IcebergTableWriter writer = (IcebergTableWriter) writerWithSmallPages(format, budget);
      long o = 0;
      for (; o < 2_600; o++) { // hot 90 %, warm 10 %: warm's first look comes at its 256th row
        writer.write(record(o, o, o % 10 == 9 ? "warm" : "hot"));
      }
      assertThat(customers(writer.openPartitions()))
          .as("hot by its share (its rows far below an eighth of the budget); warm holds its rows")
          .containsExactly("hot");
      for (; o < 400_000 && writer.openPartitions().size() < 2; o++) {
        writer.write(record(o, o, o % 10 == 9 ? "warm" : "hot"));
      }
      assertThat(customers(writer.openPartitions()))
          .as("warm opens once it holds an eighth of the budget")
          .containsExactlyInAnyOrder("hot", "warm");
      long firstRound = o;
      PreparedFiles first = writer.prepare();
      for (; o < firstRound + 3_000; o++) { // hot 80 %, warm 10 %, cold (new) 10 %
        long kind = o % 10;
        writer.write(record(o, o, kind == 8 ? "warm" : kind == 9 ? "cold" : "hot"));
      }
      assertThat(customers(writer.openPartitions()))
          .as("warm was open in the last round; cold holds its rows")
          .containsExactlyInAnyOrder("hot", "warm");
      assertThat(budget.evictions()).isZero();
      PreparedFiles second = writer.prepare();
      format.commit(
          table,
          1L,
          List.of(batch("first", 0, firstRound, first), batch("second", firstRound, o, second)),
          true);
      assertThat(ids(format)).hasSize((int) o).doesNotHaveDuplicates();
    }
  }

  private static List<String> customers(Set<Object> partitions) {
    return partitions.stream().map(k -> ((PartitionKey) k).get(0, String.class)).toList();
  }

  @Test
  void aSmallFileBudgetClosesFilesEarlyButKeepsEveryRow() throws Exception {
    try (IcebergFormat format = format()) {
      FileBudget budget = new FileBudget(2, 64L << 20);
      PreparedFiles files = write(format, 0, 200, budget);
      assertThat(budget.evictions()).isPositive();
      assertThat(budget.openFiles()).isZero();
      format.commit(table, 1L, List.of(batch("b", 0, 200, files)), false);
      assertThat(ids(format)).hasSize(200).doesNotHaveDuplicates();
    }
  }

  @Test
  void anUnpartitionedTableWhoseFileTheBudgetClosesEarlyGoesOnInANewFileAndKeepsEveryRow()
      throws Exception {
    Map<String, String> props = new HashMap<>(config.originalsStrings());
    props.put("route.orders.partition-by", "");
    config = new StreamhouseSinkConfig(props);
    try (IcebergFormat format = format()) {
      FileBudget budget = new FileBudget(8, 16L << 10);
      PreparedFiles files = write(format, 0, 3000, budget);
      assertThat(budget.evictions()).isPositive();
      assertThat(files.files()).as("one file per early close, and the last").isGreaterThan(1);
      format.commit(table, 1L, List.of(batch("b", 0, 3000, files)), false);
      assertThat(ids(format)).hasSize(3000).doesNotHaveDuplicates();
    }
  }
}
