package io.streamhouse.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.streamhouse.e2e.NessieServer.Store;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.BaseTransaction;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetadataUpdate;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateRequirement;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Nessie harness: a multi-table transaction through Iceberg's REST API lands as one Nessie
 * commit, a stale table in it fails the whole call, a snapshot planned before a schema change takes
 * the change back unless the commit asserts the current schema, and a RocksDB store keeps the
 * catalog across a crash. Table changes here are metadata only (data files that are named, not
 * written): what the catalog commits is the subject, and the manifests still go through S3FileIO to
 * the object store.
 */
@ExtendWith(NeedsJava21.class)
class NessieServerE2E {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "data", Types.StringType.get()));
  private static final Namespace SHOP = Namespace.of("shop");
  private static final TableIdentifier ORDERS = TableIdentifier.of(SHOP, "orders");
  private static final TableIdentifier CUSTOMERS = TableIdentifier.of(SHOP, "customers");

  @Test
  void oneTransactionOfTwoTablesIsOneNessieCommitAndAStaleTableFailsTheWholeCall()
      throws Exception {
    long start = System.nanoTime();
    try (NessieServer nessie =
            NessieServer.start(runDir("atomic"), cache(), mvn(), Store.IN_MEMORY);
        RESTCatalog catalog = client(nessie)) {
      System.out.printf(
          "Nessie (IN_MEMORY) and its object store answered %d ms after the start%n",
          Duration.ofNanos(System.nanoTime() - start).toMillis());
      catalog.createNamespace(SHOP);
      Table orders = createWithEmptySnapshot(catalog, ORDERS);
      Table customers = createWithEmptySnapshot(catalog, CUSTOMERS);
      // A writer that read the orders table now and commits after another writer: a stale base.
      Transaction staleOrders = append(catalog.loadTable(ORDERS), "stale");

      String before = nessie.headHash();
      Map<String, String> locationsBefore = nessie.metadataLocations(before);
      List<String> logBefore = nessie.commitHashes();
      catalog.commitTransaction(
          commit(ORDERS, append(orders, "orders-1")),
          commit(CUSTOMERS, append(customers, "customers-1")));

      // (a) One new Nessie commit on top of the old head, holding both tables' new snapshots.
      List<String> log = nessie.commitHashes();
      assertThat(log).hasSize(logBefore.size() + 1).startsWith(logBefore.toArray(String[]::new));
      String head = log.get(log.size() - 1);
      assertThat(nessie.headHash()).isEqualTo(head);
      Map<String, String> locations = nessie.metadataLocations(head);
      assertThat(locations).containsOnlyKeys("shop.orders", "shop.customers");
      FileIO io = orders.io();
      for (String table : List.of("shop.orders", "shop.customers")) {
        String name = table.substring("shop.".length()) + "-1";
        assertThat(locations.get(table)).isNotEqualTo(locationsBefore.get(table));
        assertThat(addedFiles(io, locations.get(table))).containsExactly(name + ".parquet");
        assertThat(addedFiles(io, locationsBefore.get(table))).isEmpty();
      }

      // (b) A stale table in the call: the call fails, and no table changes.
      Transaction freshCustomers = append(catalog.loadTable(CUSTOMERS), "customers-2");
      assertThatThrownBy(
              () ->
                  catalog.commitTransaction(
                      commit(ORDERS, staleOrders), commit(CUSTOMERS, freshCustomers)))
          .isInstanceOf(CommitFailedException.class)
          .hasMessageContaining("Requirement failed: snapshot id changed");
      assertThat(nessie.commitHashes()).isEqualTo(log);
      assertThat(nessie.metadataLocations(head)).isEqualTo(locations);
      assertThat(catalog.loadTable(CUSTOMERS).currentSnapshot().snapshotId())
          .isEqualTo(
              ((BaseTransaction) freshCustomers).startMetadata().currentSnapshot().snapshotId());

      // The fresh half alone commits: it was the stale table that failed the call.
      catalog.commitTransaction(commit(CUSTOMERS, freshCustomers));
      assertThat(nessie.commitHashes()).hasSize(log.size() + 1);
      assertThat(addedFiles(io, nessie.metadataLocations(nessie.headHash()).get("shop.customers")))
          .containsExactly("customers-2.parquet");

      // (c) Nessie makes a new snapshot's schema the table's current one: a snapshot planned
      // before another writer's schema change takes that change back, unless the commit requires
      // the current schema it was planned on (as the connector's atomic rounds do).
      Table planned = catalog.loadTable(ORDERS);
      TableCommit unguarded = commit(ORDERS, append(planned, "orders-3"));
      TableCommit guarded = withCurrentSchema(commit(ORDERS, append(planned, "orders-4")), planned);
      catalog.loadTable(ORDERS).updateSchema().addColumn("note", Types.StringType.get()).commit();
      assertThatThrownBy(() -> catalog.commitTransaction(guarded))
          .isInstanceOf(CommitFailedException.class)
          .hasMessageContaining("schema");
      assertThat(catalog.loadTable(ORDERS).schema().findField("note")).isNotNull();
      catalog.commitTransaction(unguarded);
      assertThat(catalog.loadTable(ORDERS).schema().findField("note"))
          .as("the schema change, after a snapshot planned before it")
          .isNull();
    }
  }

  /** {@code commit}, which also requires the current schema of {@code planned}. */
  private static TableCommit withCurrentSchema(TableCommit commit, Table planned) {
    List<UpdateRequirement> requirements = new ArrayList<>(commit.requirements());
    requirements.add(new UpdateRequirement.AssertCurrentSchemaID(planned.schema().schemaId()));
    return new Guarded(commit.identifier(), requirements, commit.updates());
  }

  private record Guarded(
      TableIdentifier identifier,
      List<UpdateRequirement> requirements,
      List<MetadataUpdate> updates)
      implements TableCommit {}

  @Test
  void aRocksDbStoreKeepsTheCatalogAcrossACrashAndAFrozenServerAnswersNothing() throws Exception {
    Path dir = runDir("rocksdb");
    try (S3CompatibleServer s3 =
            S3CompatibleServer.start(dir, NessieServer.WAREHOUSE, cache(), mvn());
        NessieServer nessie = NessieServer.start(dir, cache(), mvn(), Store.ROCKSDB, s3)) {
      try (RESTCatalog catalog = client(nessie)) {
        catalog.createNamespace(SHOP);
        Table orders = catalog.createTable(ORDERS, SCHEMA);
        orders.newFastAppend().appendFile(dataFile(orders, "orders-1")).commit();
      }
      List<String> log = nessie.commitHashes();
      Map<String, String> locations = nessie.metadataLocations(log.get(log.size() - 1));

      nessie.freeze();
      assertThatThrownBy(() -> config(nessie)).isInstanceOf(HttpTimeoutException.class);
      nessie.thaw();
      await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> config(nessie) == 200);

      nessie.kill();
      long restart = System.nanoTime();
      nessie.restart();
      System.out.printf(
          "Nessie (ROCKSDB) answered again %d ms after its restart%n",
          Duration.ofNanos(System.nanoTime() - restart).toMillis());
      assertThat(nessie.commitHashes()).isEqualTo(log);
      assertThat(nessie.metadataLocations(nessie.headHash())).isEqualTo(locations);
      try (RESTCatalog catalog = client(nessie)) {
        Table orders = catalog.loadTable(ORDERS);
        assertThat(addedFiles(orders.io(), locations.get("shop.orders")))
            .containsExactly("orders-1.parquet");
        orders.newFastAppend().appendFile(dataFile(orders, "orders-2")).commit();
      }
      assertThat(nessie.commitHashes())
          .hasSize(log.size() + 1)
          .startsWith(log.toArray(String[]::new));
    }
  }

  /**
   * Creates a table with an empty first snapshot: Nessie 0.99 does not enforce a requirement that a
   * table has no snapshot yet (projectnessie/nessie#10062), so a stale first append would win.
   */
  private static Table createWithEmptySnapshot(RESTCatalog catalog, TableIdentifier id) {
    catalog.createTable(id, SCHEMA).newFastAppend().commit();
    return catalog.loadTable(id);
  }

  /** A transaction that appends one data file, built and not committed. */
  private static Transaction append(Table table, String name) {
    Transaction tx = table.newTransaction();
    tx.newFastAppend().appendFile(dataFile(table, name)).commit();
    return tx;
  }

  private static TableCommit commit(TableIdentifier id, Transaction tx) {
    BaseTransaction base = (BaseTransaction) tx;
    return TableCommit.create(id, base.startMetadata(), base.currentMetadata());
  }

  private static DataFile dataFile(Table table, String name) {
    return DataFiles.builder(table.spec())
        .withPath(table.location() + "/data/" + name + ".parquet")
        .withFormat(FileFormat.PARQUET)
        .withFileSizeInBytes(1024)
        .withRecordCount(1)
        .build();
  }

  /** The file names the current snapshot of the metadata file at {@code location} added. */
  private static List<String> addedFiles(FileIO io, String location) {
    Table table = new BaseTable(new StaticTableOperations(location, io), location);
    assertThat(table.currentSnapshot()).as("current snapshot of %s", location).isNotNull();
    List<String> names = new ArrayList<>();
    for (DataFile f : SnapshotChanges.builderFor(table).build().addedDataFiles()) {
      names.add(f.location().substring(f.location().lastIndexOf('/') + 1));
    }
    return names;
  }

  private static RESTCatalog client(NessieServer nessie) {
    RESTCatalog catalog = new RESTCatalog();
    catalog.initialize("nessie", nessie.catalogProperties());
    return catalog;
  }

  /** The status of {@code GET /iceberg/v1/config}, within 2 s. */
  private static int config(NessieServer nessie) throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(nessie.icebergUri() + "/v1/config"))
                .timeout(Duration.ofSeconds(2))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static Path runDir(String name) {
    return E2eSettings.workDir().resolve("nessie-" + name + "-" + System.currentTimeMillis());
  }

  private static Path cache() {
    return E2eSettings.workDir().resolve("kafka-dists");
  }

  private static String mvn() {
    return E2eSettings.mavenCmd();
  }
}
