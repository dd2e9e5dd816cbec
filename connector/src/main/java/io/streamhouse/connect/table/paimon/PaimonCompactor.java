package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.table.TableId;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.paimon.CoreOptions;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.manifest.ManifestCommittable;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.CommitMessage;
import org.apache.paimon.table.sink.CommitMessageImpl;
import org.apache.paimon.table.sink.TableCommitImpl;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator as the single compactor of its primary-key tables (tasks write in write-only
 * mode). After each commit it asks Paimon to compact the buckets that commit touched, and Paimon's
 * own trigger ({@code num-sorted-run.compaction-trigger}, lookup and deletion-vector rules) decides
 * what to merge; every {@code full-compaction.delta-commits} commits (1 for
 * {@code changelog-producer=full-compaction} when unset) it runs a full compaction of every bucket
 * touched since the last one. Tables with {@code write-only=true} are left to their own compactor.
 * The compaction snapshot carries the same watermarks as the commit before it.
 */
final class PaimonCompactor {
  private static final Logger LOG = LoggerFactory.getLogger(PaimonCompactor.class);

  private record Bucket(BinaryRow partition, int bucket) {}

  private final String connector;
  private final String commitUser;
  private final Supplier<IOManager> ioManager;
  private final Map<TableId, Set<Bucket>> sinceFull = new ConcurrentHashMap<>();
  private final Map<TableId, Integer> commitsSinceFull = new ConcurrentHashMap<>();
  /** Buckets whose compaction failed: tried again with the table's next commit. */
  private final Map<TableId, Set<Bucket>> failed = new ConcurrentHashMap<>();

  PaimonCompactor(String connector, String commitUser, Supplier<IOManager> ioManager) {
    this.connector = connector;
    this.commitUser = commitUser;
    this.ioManager = ioManager;
  }

  /** Compacts after commit {@code identifier - 1}; a failure is logged and tried again next time. */
  void afterCommit(TableId id, FileStoreTable table, List<CommitMessage> applied, long identifier,
      Map<String, String> properties) {
    CoreOptions options = new CoreOptions(table.options());
    if (table.primaryKeys().isEmpty() || options.writeOnly() || applied.isEmpty()) {
      return;
    }
    Set<Bucket> touched = new LinkedHashSet<>();
    applied.forEach(m -> touched.add(new Bucket(m.partition(), m.bucket())));
    Set<Bucket> retry = failed.remove(id);
    if (retry != null) {
      touched.addAll(retry);
    }
    Integer every = options.fullCompactionDeltaCommits();
    if (every == null && options.changelogProducer() == CoreOptions.ChangelogProducer.FULL_COMPACTION) {
      every = 1;
    }
    boolean full = false;
    if (every != null) {
      Set<Bucket> pending = sinceFull.computeIfAbsent(id, t -> new LinkedHashSet<>());
      pending.addAll(touched);
      full = commitsSinceFull.merge(id, 1, Integer::sum) >= every;
      if (full) {
        touched.addAll(pending);
      }
    }
    long start = System.nanoTime();
    try {
      List<CommitMessage> messages = compact(table, touched, full, identifier);
      if (full) {
        sinceFull.remove(id);
        commitsSinceFull.remove(id);
      }
      if (messages.isEmpty()) {
        return;
      }
      ManifestCommittable committable = new ManifestCommittable(identifier);
      messages.forEach(committable::addFileCommittable);
      properties.forEach(committable::addProperty);
      try (TableCommitImpl commit = table.newCommit(commitUser)) {
        commit.commit(committable);
      }
      LOG.info("Connector {} compacted {} buckets of {} ({}) in {} ms", connector, messages.size(), id,
          full ? "full" : "by Paimon's trigger", (System.nanoTime() - start) / 1_000_000);
    } catch (Exception e) {
      failed.computeIfAbsent(id, t -> ConcurrentHashMap.newKeySet()).addAll(touched);
      LOG.warn("Connector {}: compaction of {} buckets of Paimon table {} failed; they are tried again after "
          + "the table's next commit (until then, on tables with deletion vectors, their newest rows are not "
          + "visible to readers)", connector, touched.size(), id, e);
    }
  }

  private List<CommitMessage> compact(FileStoreTable table, Set<Bucket> buckets, boolean full, long identifier)
      throws Exception {
    try (TableWriteImpl<?> write = (TableWriteImpl<?>) table.newStreamWriteBuilder().withCommitUser(commitUser).newWrite()) {
      write.withIOManager(ioManager.get());
      for (Bucket b : buckets) {
        write.compact(b.partition(), b.bucket(), full);
      }
      List<CommitMessage> messages = new ArrayList<>();
      for (CommitMessage m : write.prepareCommit(true, identifier)) {
        if (!((CommitMessageImpl) m).isEmpty()) {
          messages.add(m);
        }
      }
      return messages;
    }
  }
}
