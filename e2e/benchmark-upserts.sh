#!/usr/bin/env bash
# Upsert benchmark, Iceberg against Paimon: the same keyed changes (1M over 100k keys, 20 % deletes as
# tombstones, 4 partitions) drained by our sink into an Iceberg primary-key table (route primary-key=id,
# format v2, unpartitioned) and a Paimon primary-key table (4 buckets), with 1 and 2 tasks, each drain in a
# fresh worker JVM; prints upserts/s, peak heap, commit latency, Iceberg data and delete files per commit,
# the time to read each Iceberg table (IcebergGenerics) against a fully compacted copy, and the Iceberg rate
# as a share of Paimon's. Options: --changes N (default 1000000), --keys N (default 100000), --tasks 1,2,
# --formats iceberg,paimon, --commit-interval-ms N (default 2000, the only non-default setting),
# --partitions N (default 4), --iceberg-partition-by SPEC (e.g. bucket(16,id); default unpartitioned),
# --reads N (default 3), --iceberg-delete-ratio R (maintenance.compact.delete-ratio of the Iceberg drains;
# default: the connector's), --steady-commits N (default 100: the same changes in N bursts, each committed
# before the next, into a fresh Iceberg table, then read whole; 0 skips it). About 10 minutes on 2 cores.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
(cd "$ROOT" && ./mvnw -q -B -DskipTests package)
exec java -cp "$ROOT/e2e/target/classes:$(cat "$ROOT/e2e/target/launcher-classpath.txt")" \
  io.streamhouse.e2e.bench.UpsertBenchmark --repo-root "$ROOT" "$@"
