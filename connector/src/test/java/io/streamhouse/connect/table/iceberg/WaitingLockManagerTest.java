package io.streamhouse.connect.table.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.streamhouse.connect.config.StreamhouseSinkConfig;
import io.streamhouse.connect.testing.LocalCatalogConfigs;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The commit lock of Hadoop catalogs: waiters wake on release, across catalog instances. */
class WaitingLockManagerTest {
  private final ExecutorService executor = Executors.newCachedThreadPool();

  @TempDir Path dir;

  @AfterEach
  void tearDown() {
    executor.shutdownNow();
  }

  @Test
  void aWaiterGetsTheLockWhenItsOwnerReleasesItAndNotBefore() throws Exception {
    WaitingLockManager first = manager(Map.of());
    WaitingLockManager second = manager(Map.of());
    String entity = dir.resolve("v2.metadata.json").toString();
    assertThat(first.acquire(entity, "commit-a")).isTrue();

    Future<Boolean> waiter = executor.submit(() -> second.acquire(entity, "commit-b"));
    await().until(() -> WaitingLockManager.waiting() == 1);
    // The catalog releases in a finally block even after a failed acquire: that release is
    // refused and the owner keeps the lock.
    assertThat(second.release(entity, "commit-b")).isFalse();
    second.close();
    assertThat(waiter).isNotDone();

    assertThat(first.release(entity, "commit-a")).isTrue();
    assertThat(waiter.get()).isTrue();
    assertThat(second.release(entity, "commit-b")).isTrue();
    assertThat(first.acquire(entity, "commit-c")).isTrue();
    assertThat(first.release(entity, "commit-c")).isTrue();
  }

  @Test
  void aWaiterGivesUpAfterTheAcquireTimeout() {
    WaitingLockManager manager = manager(Map.of("lock.acquire-timeout-ms", "0"));
    String entity = dir.resolve("v3.metadata.json").toString();
    assertThat(manager.acquire(entity, "commit-a")).isTrue();

    assertThat(manager.acquire(entity, "commit-b")).isFalse();
    assertThat(manager.acquire(dir.resolve("v4.metadata.json").toString(), "commit-b")).isTrue();
    manager.release(entity, "commit-a");
    manager.release(dir.resolve("v4.metadata.json").toString(), "commit-b");
  }

  @Test
  void aHadoopCatalogsCommitWaitsForTheLockAndGoesOnWhenItIsReleased() throws Exception {
    Map<String, String> props = LocalCatalogConfigs.icebergOrders(dir);
    props.put("catalog.local.type", "hadoop");
    props.remove("catalog.local.uri");
    Catalog catalog = IcebergCatalogLoader.load(new StreamhouseSinkConfig(props).catalog("local"));
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
    Table table =
        catalog.createTable(TableIdentifier.of("db", "t"), schema, PartitionSpec.unpartitioned());
    String current = ((HasTableOperations) table).operations().current().metadataFileLocation();
    assertThat(current).endsWith("v1.metadata.json");
    String next = current.replace("v1.metadata.json", "v2.metadata.json");
    WaitingLockManager other = manager(Map.of());
    assertThat(other.acquire(next, "another-commit")).isTrue();

    CompletableFuture<Void> commit =
        CompletableFuture.runAsync(
            () -> table.updateProperties().set("owner", "test").commit(), executor);
    await().until(() -> WaitingLockManager.waiting() == 1);
    assertThat(commit).isNotDone();

    other.release(next, "another-commit");
    commit.get();
    assertThat(catalog.loadTable(TableIdentifier.of("db", "t")).properties())
        .containsEntry("owner", "test");
  }

  private static WaitingLockManager manager(Map<String, String> props) {
    WaitingLockManager manager = new WaitingLockManager();
    manager.initialize(props);
    return manager;
  }
}
