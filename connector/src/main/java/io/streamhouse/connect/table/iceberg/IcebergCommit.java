package io.streamhouse.connect.table.iceberg;

import io.streamhouse.connect.protocol.CommitOutcome;
import io.streamhouse.connect.protocol.OfferedBatch;
import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.table.CheckedBatches;
import io.streamhouse.connect.table.CommitLoop;
import io.streamhouse.connect.table.SnapshotKeys;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.ManageSnapshots;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit of offered batches to one Iceberg table: decodes and checks their files (data files,
 * and a keyed table's position deletes with what its writers' key indexes were read from), refuses
 * keyed batches whose positions are out of date ({@link KeyedBatchCheck}), and makes one snapshot
 * ({@link IcebergSnapshotUpdate}) with the watermarks, the key writers and the connector's tag, in
 * one transaction, under {@link CommitLoop}. In an atomic round the transaction is not committed
 * but staged ({@link StagedCommits}), to be committed with the round's other tables.
 */
final class IcebergCommit {
  private static final Logger LOG = LoggerFactory.getLogger(IcebergCommit.class);

  private IcebergCommit() {}

  static CommitOutcome run(
      IcebergFormat format,
      TableId id,
      long commitId,
      List<OfferedBatch> offered,
      boolean fullRound,
      StagedCommits staging) {
    String connector = format.connector();
    SnapshotKeys keys = format.keys();
    Table loaded = format.table(id);
    IcebergFileCheck check = new IcebergFileCheck(loaded);
    Map<Integer, PartitionSpec> specs = loaded.specs();
    Map<String, KeyedFilesCodec.KeyedFiles> keyed = new HashMap<>();
    BatchSchemas schemas = new BatchSchemas();
    CheckedBatches<ContentFile<?>> checked =
        CheckedBatches.check(
            connector,
            id,
            offered,
            new CheckedBatches.FileReader<>() {
              @Override
              public List<ContentFile<?>> read(OfferedBatch batch)
                  throws DataFilesCodec.InvalidDataFilesException {
                if (KeyedFilesCodec.isKeyed(batch.files().payloadVersion())) {
                  KeyedFilesCodec.KeyedFiles files =
                      KeyedFilesCodec.decode(batch.files().payload(), specs);
                  keyed.put(batch.batchId(), files);
                  schemas.add(batch.batchId(), files.schema());
                  List<ContentFile<?>> all = new ArrayList<>(files.data());
                  all.addAll(files.deletes());
                  return all;
                }
                DataFilesCodec.Decoded decoded =
                    DataFilesCodec.decodeWithSchema(
                        batch.files().payloadVersion(), batch.files().payload(), specs);
                schemas.add(batch.batchId(), decoded.schema());
                return List.copyOf(decoded.files());
              }

              @Override
              public String path(ContentFile<?> file) {
                return IcebergFileCheck.normalized(file.location());
              }

              @Override
              public Optional<String> problem(ContentFile<?> file) {
                return check.problem(file);
              }
            });
    List<OfferedBatch> batches = WriterTurns.order(checked.accepted(offered), keyed, commitId);
    return CommitLoop.run(
        connector,
        id,
        commitId,
        batches,
        checked,
        fullRound,
        keys,
        new CommitLoop.Table() {
          private Table table = loaded; // refreshed just above; again after a conflict
          private Long expectedOwn;
          private boolean expectedOffAncestry;
          private Watermarks watermarks = Watermarks.EMPTY;
          private Watermarks writers = Watermarks.EMPTY;
          private boolean first = true;

          /** Rewrite maps (oldest first) that move the positions of the batches that need it. */
          private final Map<String, List<RewriteMap>> translations = new HashMap<>();

          private final Map<String, RewriteMap> maps = new HashMap<>();

          /** Batches an attempt found to delete rows deleted already, with why: refused next. */
          private final Map<String, String> stale = new HashMap<>();

          @Override
          public Watermarks refresh() {
            table = first ? loaded : format.table(id);
            first = false;
            Optional<OwnSnapshot> own = OwnSnapshot.find(table, keys);
            expectedOwn = own.map(o -> o.snapshot().snapshotId()).orElse(null);
            expectedOffAncestry = own.map(OwnSnapshot::offAncestry).orElse(false);
            watermarks = format.watermarksOf(own.map(OwnSnapshot::snapshot));
            writers =
                own.map(o -> KeyedWriterStart.keyWritersOf(format, o.snapshot(), table.name()))
                    .orElse(Watermarks.EMPTY);
            return watermarks;
          }

          @Override
          public Set<String> refuse(List<OfferedBatch> applying) {
            Set<String> refused = new LinkedHashSet<>();
            schemas
                .refused(table, applying)
                .forEach(
                    (batchId, why) -> {
                      refused.add(batchId);
                      LOG.warn(
                          "Connector {}: rejected batch {} for table {}: {}; its task writes the"
                              + " records again",
                          connector,
                          batchId,
                          id,
                          why);
                    });
            translations.clear();
            Map<TopicPartition, Long> writerOf = new HashMap<>();
            List<UnseenKeyHistory.Batch> unseen = new ArrayList<>();
            for (OfferedBatch batch : applying) {
              KeyedFilesCodec.KeyedFiles files = keyed.get(batch.batchId());
              if (files == null || refused.contains(batch.batchId())) {
                continue;
              }
              Map<String, List<String>> needed = new HashMap<>();
              Optional<String> problem =
                  KeyedBatchCheck.problem(table, batch, files, watermarks, writers, keys, needed);
              if (problem.isEmpty() && needed.containsKey(batch.batchId())) {
                problem = load(batch.batchId(), needed.get(batch.batchId()));
              }
              if (problem.isEmpty() && stale.containsKey(batch.batchId())) {
                problem = Optional.of(stale.get(batch.batchId()));
              }
              for (TopicPartition tp : batch.ranges().keySet()) {
                Long other = writerOf.putIfAbsent(tp, files.writer());
                if (problem.isEmpty() && other != null && other != files.writer()) {
                  // Two writers' rows of one partition in one commit: the later one's index
                  // cannot know the earlier one's rows.
                  problem = Optional.of("another writer's batch of " + tp + " is in this commit");
                }
              }
              if (problem.isEmpty()) {
                problem = unseenKeys(files, unseen);
              }
              if (problem.isPresent()) {
                refused.add(batch.batchId());
                LOG.warn(
                    "Connector {}: rejected keyed batch {} of task {} for table {}: {}; the task "
                        + "reads its key index again and writes the records again",
                    connector,
                    batch.batchId(),
                    batch.taskId(),
                    id,
                    problem.get());
              }
            }
            return refused;
          }

          /**
           * Why a batch's {@link UnseenKeys} clash with what another writer committed since its
           * index was read or puts in this commit ({@code inCommit}, which takes it if not).
           */
          private Optional<String> unseenKeys(
              KeyedFilesCodec.KeyedFiles files, List<UnseenKeyHistory.Batch> inCommit) {
            Optional<String> problem =
                format
                    .unseenKeys()
                    .problem(id, table, keys, files.writer(), files.baseSnapshot(), files.unseen());
            if (problem.isEmpty()) {
              problem =
                  UnseenKeyHistory.clash(files.writer(), files.unseen(), inCommit)
                      .map(clash -> clash + " in this commit");
            }
            if (problem.isEmpty()) {
              inCommit.add(new UnseenKeyHistory.Batch(files.writer(), files.unseen()));
            }
            return problem;
          }

          /** Loads the maps a batch's positions need; why it cannot be committed if one fails. */
          private Optional<String> load(String batchId, List<String> locations) {
            List<RewriteMap> loaded = new ArrayList<>();
            for (String location : locations) {
              try {
                loaded.add(maps.computeIfAbsent(location, l -> RewriteMap.read(table.io(), l)));
              } catch (RuntimeException e) {
                return Optional.of(
                    "its deletes point into rewritten files and rewrite map "
                        + location
                        + " cannot be read: "
                        + e.getMessage());
              }
            }
            translations.put(batchId, loaded);
            return Optional.empty();
          }

          @Override
          public CommitLoop.Committed commit(
              List<OfferedBatch> applying, Map<String, String> summary)
              throws CommitLoop.ConcurrentCommitException {
            if (staging == null) {
              try {
                schemas.commitAhead(table, applying); // so that the snapshot has the new schema
              } catch (CommitFailedException concurrent) {
                throw new CommitLoop.ConcurrentCommitException(concurrent.getMessage(), concurrent);
              }
            }
            Transaction transaction = table.newTransaction();
            if (staging != null) {
              // In the snapshot's table commit. Not in a committed transaction: its retries
              // would apply the snapshot again without this change.
              schemas.apply(transaction, applying);
            }
            List<RewriteMap> moves = List.of(); // the longest list holds every other's maps
            for (OfferedBatch batch : applying) {
              List<RewriteMap> needed = translations.getOrDefault(batch.batchId(), List.of());
              if (needed.size() > moves.size()) {
                moves = needed;
              }
            }
            IcebergSnapshotUpdate update;
            try {
              update =
                  IcebergSnapshotUpdate.of(table, transaction, applying, checked, keyed, moves);
            } catch (IcebergSnapshotUpdate.StaleBatchesException e) {
              stale.putAll(e.reasons());
              throw e;
            }
            if (update.keyed()) {
              Map<TopicPartition, Long> next = new HashMap<>(writers.asMap());
              for (OfferedBatch batch : applying) {
                KeyedFilesCodec.KeyedFiles files = keyed.get(batch.batchId());
                if (files != null) {
                  batch.ranges().keySet().forEach(tp -> next.put(tp, files.writer()));
                }
              }
              summary.put(keys.keyWriters(), Watermarks.of(next).encode());
            }
            // The own-snapshot check runs in Iceberg's commit, against the metadata it swaps
            // atomically.
            update.commit(
                summary,
                new OwnSnapshotValidator(
                    keys.watermarks(),
                    expectedOwn,
                    expectedOffAncestry,
                    keys::isApacheSinkCommitOfThisName));
            long snapshotId;
            try {
              snapshotId = transaction.table().currentSnapshot().snapshotId();
              // One transaction: the snapshot and the tag that keeps it from any snapshot expiry.
              ManageSnapshots refs = transaction.manageSnapshots();
              if (transaction.table().refs().containsKey(keys.tag())) {
                refs.replaceTag(keys.tag(), snapshotId);
              } else {
                refs.createTag(keys.tag(), snapshotId);
              }
              refs.commit();
              if (staging == null) {
                transaction.commitTransaction();
              }
            } catch (ValidationException concurrent) {
              throw new CommitLoop.ConcurrentCommitException(concurrent.getMessage(), concurrent);
            }
            List<UnseenKeyHistory.Batch> committed = new ArrayList<>();
            for (OfferedBatch batch : applying) {
              KeyedFilesCodec.KeyedFiles files = keyed.get(batch.batchId());
              if (files != null) {
                committed.add(new UnseenKeyHistory.Batch(files.writer(), files.unseen()));
              }
            }
            Table committedTo = table;
            Runnable afterCommit =
                () -> {
                  if (!committed.isEmpty()) {
                    format.unseenKeys().committed(id, snapshotId, committed);
                  }
                  update
                      .transport()
                      .forEach(f -> IcebergFormat.deleteQuietly(committedTo, f.location()));
                };
            if (staging == null) {
              afterCommit.run();
            } else {
              staging.add(IcebergFormat.identifier(id), transaction, table.io(), afterCommit);
            }
            return new CommitLoop.Committed(
                snapshotId, update.records(), update.files(), List.of());
          }
        });
  }
}
