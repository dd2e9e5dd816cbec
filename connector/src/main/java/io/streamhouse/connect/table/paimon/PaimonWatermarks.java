package io.streamhouse.connect.table.paimon;

import io.streamhouse.connect.protocol.TableId;
import io.streamhouse.connect.protocol.Watermarks;
import io.streamhouse.connect.table.SnapshotKeys;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.paimon.Snapshot;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.sink.TagCallback;
import org.apache.paimon.tag.Tag;
import org.apache.paimon.utils.TagManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connector's watermarks in a Paimon table: in the properties of the latest snapshot of its
 * commit user, and in a copy of that snapshot the connector's tag keeps through any snapshot
 * expiry.
 */
final class PaimonWatermarks {
  private static final Logger LOG = LoggerFactory.getLogger(PaimonWatermarks.class);

  private final String commitUser;
  private final SnapshotKeys keys;
  private final Set<TableId> tagged = ConcurrentHashMap.newKeySet();

  PaimonWatermarks(String commitUser, SnapshotKeys keys) {
    this.commitUser = commitUser;
    this.keys = keys;
  }

  /**
   * The latest snapshot of the connector's commit user; when an expiry removed it (another writer's
   * snapshots on top, expired by someone else), the snapshot the connector's tag keeps a copy of.
   */
  Optional<Snapshot> ownSnapshot(FileStoreTable table) {
    Optional<Snapshot> own = table.snapshotManager().latestSnapshotOfUser(commitUser);
    if (own.isPresent()) {
      return own;
    }
    return table
        .tagManager()
        .get(keys.tag())
        .map(Tag::trimToSnapshot)
        .filter(s -> commitUser.equals(s.commitUser()));
  }

  /** The watermarks of the connector's snapshot {@code own}; none without one. */
  Watermarks of(Optional<Snapshot> own) {
    return own.map(Snapshot::properties)
        .map(p -> p.get(keys.watermarks()))
        .map(Watermarks::decode)
        .orElse(Watermarks.EMPTY);
  }

  /**
   * Moves the connector's tag to {@code snapshot}, its latest commit: a tag keeps a copy of the
   * snapshot (its watermarks) and its files through any snapshot expiry. After the commit, not
   * atomic with it: until the tag moves, the new snapshot is the latest and cannot be expired yet.
   * Paimon's {@code replaceTag} by snapshot id, minus reading back the snapshot just written.
   */
  void moveTag(TableId id, FileStoreTable table, Snapshot snapshot) {
    try {
      TagManager tags = table.tagManager();
      List<TagCallback> callbacks = table.store().createTagCallbacks(table);
      if (tagged.contains(id) || tags.tagExists(keys.tag())) {
        tags.replaceTag(snapshot, keys.tag(), null, callbacks);
      } else {
        tags.createTag(
            snapshot, keys.tag(), table.coreOptions().tagDefaultTimeRetained(), callbacks, false);
      }
      tagged.add(id);
    } catch (RuntimeException e) {
      tagged.remove(id);
      LOG.warn(
          "Could not move tag {} of Paimon table {} to snapshot {}; its watermarks rely on the "
              + "snapshot alone until the next commit: {}",
          keys.tag(),
          id,
          snapshot.id(),
          e.toString());
    }
  }
}
