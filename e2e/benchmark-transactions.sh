#!/usr/bin/env bash
# Transaction-consistent CDC against plain CDC: bank transfers as Debezium transactions (two keyed
# account tables on 4 and 3 partitions, the transaction topic to an append table), one Nessie 0.99
# catalog with commit.atomic=true in both modes, one connector per mode on topics of its own with the
# same records, each in a fresh worker JVM. Prints the drain of a backlog (records/s until every record
# is durable, peak heap and RSS, commit rounds) and the freshness of a steady stream (time from a
# transaction's END being produced to its row being seen in the transactions table: p50/p95/max).
# Needs Java 21+ for Nessie. Options: --transfers N (backlog, default 20000), --rate N (steady
# transactions/s, default 100), --seconds N (steady phase, default 60), --tasks N (default 2),
# --commit-interval-ms N (default 2000), --heap 1g.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
(cd "$ROOT" && ./mvnw -q -B -DskipTests package)
exec java -cp "$ROOT/e2e/target/classes:$(cat "$ROOT/e2e/target/launcher-classpath.txt")" \
  io.streamhouse.e2e.bench.TransactionsBenchmark --repo-root "$ROOT" "$@"
