package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.protocol.CompactionJob;
import io.streamhouse.connect.protocol.TableId;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.utils.SerializationUtils;

/**
 * Compaction of primary-key tables, spread over the tasks (tasks write in write-only mode).
 *
 * <p>The coordinator plans after each commit ({@link #jobsAfterCommit}): a job for a bucket once it
 * holds {@code num-sorted-run.compaction-trigger} level-0 files since its last compaction, or for
 * every touched bucket on tables whose readers do not merge level-0 files (the lookup and
 * deletion-vector rules); Paimon then decides what to merge in it. Every {@code
 * full-compaction.delta-commits} commits (1 for {@code changelog-producer=full-compaction} when
 * unset) it plans a full compaction of every bucket touched since the last one. A task runs the
 * jobs it is handed: a fresh writer restores each bucket from the latest snapshot and compacts it,
 * and the result goes back to the coordinator as commit messages, which commits them like written
 * files. Tables with {@code write-only=true} are left to their own compactor.
 */
final class PaimonCompactor {
  private static final int SPEC_VERSION = 1;
  private static final int MAX_PARTITION_BYTES = 64 * 1024;

  /** One bucket of one partition. */
  record Bucket(BinaryRow partition, int bucket) {
    static Bucket of(CommitMessage message) {
      return new Bucket(message.partition(), message.bucket());
    }
  }

  /** A job decoded on the task. */
  record Job(Bucket bucket, boolean full) {}

  private final String commitUser;
  private final Supplier<IOManager> ioManager;
  private final Map<TableId, Set<Bucket>> sinceFull = new ConcurrentHashMap<>();
  private final Map<TableId, Integer> commitsSinceFull = new ConcurrentHashMap<>();
  private final LevelZeroCounts levelZero = new LevelZeroCounts();

  PaimonCompactor(String commitUser, Supplier<IOManager> ioManager) {
    this.commitUser = commitUser;
    this.ioManager = ioManager;
  }

  /**
   * Coordinator: the compaction jobs after a commit of {@code applied} (written batches) to {@code
   * table}. A table whose readers merge level-0 files themselves gets a job for a bucket once the
   * bucket has {@code num-sorted-run.compaction-trigger} level-0 files since its last compaction; a
   * table whose readers skip them (deletion vectors, first-row) or whose lookups need them
   * compacted (changelog-producer lookup, force-lookup) gets one for every touched bucket; and
   * every {@code full-compaction.delta-commits} commits, a full compaction of every bucket touched
   * since the last one.
   */
  List<CompactionJob> jobsAfterCommit(
      TableId id, FileStoreTable table, List<CommitMessage> applied) {
    CoreOptions options = new CoreOptions(table.options());
    if (table.primaryKeys().isEmpty() || options.writeOnly() || applied.isEmpty()) {
      return List.of();
    }
    Set<Bucket> touched = new LinkedHashSet<>();
    applied.forEach(m -> touched.add(Bucket.of(m)));
    List<Bucket> due = levelZero.committed(id, applied, options.numSortedRunCompactionTrigger());
    Collection<Bucket> compacting;
    boolean full = fullCompactionDue(id, options, touched);
    if (full || !readersMergeLevelZero(options)) {
      compacting = touched;
    } else {
      compacting = due;
    }
    levelZero.handedOut(id, compacting);
    return compacting.stream().map(b -> job(b, full)).toList();
  }

  /**
   * Whether this commit calls for the table's full compaction; if so, {@code touched} grows by
   * every bucket touched since the last one.
   */
  private boolean fullCompactionDue(TableId id, CoreOptions options, Set<Bucket> touched) {
    Integer every = options.fullCompactionDeltaCommits();
    if (every == null
        && options.changelogProducer() == CoreOptions.ChangelogProducer.FULL_COMPACTION) {
      every = 1;
    }
    if (every == null) {
      return false;
    }
    Set<Bucket> pending = sinceFull.computeIfAbsent(id, t -> new LinkedHashSet<>());
    pending.addAll(touched);
    if (commitsSinceFull.merge(id, 1, Integer::sum) < every) {
      return false;
    }
    touched.addAll(pending);
    sinceFull.remove(id);
    commitsSinceFull.remove(id);
    return true;
  }

  /**
   * Whether readers of the table merge its level-0 files themselves, so that its compaction may
   * wait until Paimon's trigger calls for it.
   */
  private static boolean readersMergeLevelZero(CoreOptions options) {
    return !options.needLookup() && !options.compactionForceUpLevel0();
  }

  /**
   * Coordinator, at its start: a job for every bucket of {@code table} that has level-0 files,
   * which readers of tables with deletion vectors do not see until they are compacted. Covers the
   * jobs a previous coordinator handed out and lost with a crash.
   */
  static List<CompactionJob> jobsForLevelZero(FileStoreTable table) {
    CoreOptions options = new CoreOptions(table.options());
    if (table.primaryKeys().isEmpty()
        || options.writeOnly()
        || table.snapshotManager().latestSnapshot() == null) {
      return List.of();
    }
    Set<Bucket> buckets = new LinkedHashSet<>();
    // The store's own scan lists every live file; a table reader would skip the very level-0 files
    // sought.
    for (org.apache.paimon.manifest.ManifestEntry entry : table.store().newScan().plan().files()) {
      if (entry.level() == 0) {
        buckets.add(new Bucket(entry.partition(), entry.bucket()));
      }
    }
    return buckets.stream().map(b -> job(b, false)).toList();
  }

  private static CompactionJob job(Bucket b, boolean full) {
    byte[] partition = SerializationUtils.serializeBinaryRow(b.partition());
    return new CompactionJob(
        "partition " + HexFormat.of().formatHex(partition) + " bucket " + b.bucket(),
        spec(partition, b.bucket(), full));
  }

  private static byte[] spec(byte[] partition, int bucket, boolean full) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(partition.length + 16);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeInt(SPEC_VERSION);
      out.writeBoolean(full);
      out.writeInt(bucket);
      out.writeInt(partition.length);
      out.write(partition);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * Task: a job's bucket, checked against {@code table}. The spec comes from this connector's
   * coordinator in an authenticated event; it is checked anyway before Paimon reads the partition.
   */
  static Job decode(FileStoreTable table, CompactionJob job) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(job.spec()))) {
      int version = in.readInt();
      if (version != SPEC_VERSION) {
        throw new IllegalArgumentException(
            "compaction job version " + version + " (this plugin reads " + SPEC_VERSION + ")");
      }
      boolean full = in.readBoolean();
      int bucket = in.readInt();
      int buckets = table.coreOptions().bucket();
      if (buckets > 0 ? bucket < 0 || bucket >= buckets : bucket < 0) {
        throw new IllegalArgumentException(
            "bucket " + bucket + " of a table with bucket=" + buckets);
      }
      int length = in.readInt();
      if (length < 4 || length > MAX_PARTITION_BYTES || length != in.available()) {
        throw new IllegalArgumentException(
            "a partition of " + length + " bytes in a job of " + job.spec().length + " bytes");
      }
      byte[] partition = in.readNBytes(length);
      if (readInt(partition) != table.partitionKeys().size()) {
        throw new IllegalArgumentException(
            "a partition of "
                + readInt(partition)
                + " fields; the table has "
                + table.partitionKeys().size()
                + " partition keys");
      }
      return new Job(new Bucket(SerializationUtils.deserializeBinaryRow(partition), bucket), full);
    } catch (IOException e) {
      throw new IllegalArgumentException("a truncated compaction job", e);
    }
  }

  private static int readInt(byte[] b) {
    return ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
  }

  /** Task: compacts the jobs' buckets; the messages to commit (none when Paimon merged nothing). */
  List<CommitMessage> compact(FileStoreTable table, List<Job> jobs) throws Exception {
    try (TableWriteImpl<?> write =
        (TableWriteImpl<?>) table.newStreamWriteBuilder().withCommitUser(commitUser).newWrite()) {
      write.withIOManager(ioManager.get());
      for (Job job : jobs) {
        write.compact(job.bucket().partition(), job.bucket().bucket(), job.full());
      }
      List<CommitMessage> messages = new ArrayList<>();
      for (CommitMessage m : write.prepareCommit(true, 0)) {
        if (!((CommitMessageImpl) m).isEmpty()) {
          messages.add(m);
        }
      }
      return messages;
    }
  }
}
