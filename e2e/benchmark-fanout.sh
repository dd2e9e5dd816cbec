#!/usr/bin/env bash
# Fan-out benchmark: one topic of realistic records (BenchRecords: JSON with schemas, 11 leaf columns)
# that name their table in a field, round-robin over N tables, drained into N auto-created Iceberg or
# Paimon (primary-key, default buckets) tables with 1 and 2 tasks, each run in a fresh worker JVM, with
# the connector's defaults but commit.interval.ms. Prints records/s, MB/s, peak heap and RSS, files per
# table per commit, commit round times, rounds that passed the commit timeout, the longest wait of a
# round for the tasks, the longest task answer and the hand-overs. A run fails when nothing new is
# committed for 3 minutes (or after 15 minutes).
# Options: --records N (default 500000), --tables 1,10,200,1000, --tasks 1,2, --formats iceberg,paimon
# (or none), --commit-interval-ms N (default 10000; the connector's default is 60000), --heap 1g,
# --apache-tables 10,200 [--apache-tasks 1] (the Apache Iceberg sink 1.12.0 with dynamic routing on a
# Kafka 4.3 worker, same records), --restart-task-at-half true (with 2 tasks or more: restarts the last
# task once half the records are durable, a rebalance whose hand-overs the run reports). A subset:
# --tables 200 --tasks 1 --formats paimon. --set.<key> <value> sets a key of our connector (named in the
# non-default line), e.g. --set.consumer.override.partition.assignment.strategy <assignor class>.
# --catalog jdbc|nessie [--atomic]: our Iceberg tables in a JDBC (SQLite) catalog per run (the default)
# or in one Nessie 0.99 server for the whole benchmark (Iceberg REST, files in an S3-compatible store;
# needs Java 21+), commit.atomic=false, or true with --atomic; Iceberg only. The round commit columns
# (median, p95, max) then set per-table commits against round-atomic ones: run once without and once
# with --atomic, e.g. --formats iceberg --tables 20 --tasks 1 --catalog nessie [--atomic].
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
(cd "$ROOT" && ./mvnw -q -B -DskipTests package)
exec java -cp "$ROOT/e2e/target/classes:$(cat "$ROOT/e2e/target/launcher-classpath.txt")" \
  io.streamhouse.e2e.bench.FanoutBenchmark --repo-root "$ROOT" "$@"
