#!/usr/bin/env bash
# Freshness benchmark: records sent at a steady rate, our sink committing every N ms to an Iceberg
# table or a Paimon primary-key table, a reader looking at the table at most every 50 ms; prints
# produce-to-visible latency p50/p99/max. Options: --formats iceberg,paimon, --rate N records/s
# (default 2000), --commit-intervals-ms 60000,1000 (60000 is the default interval), --seconds N
# (sending time per interval; default 3 intervals, at least 60 s).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
(cd "$ROOT" && ./mvnw -q -B -DskipTests package)
exec java -cp "$ROOT/e2e/target/classes:$(cat "$ROOT/e2e/target/launcher-classpath.txt")" \
  io.streamhouse.e2e.bench.FreshnessBenchmark --repo-root "$ROOT" "$@"
