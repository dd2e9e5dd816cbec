#!/usr/bin/env bash
# Table maintenance benchmark, in one JVM, no broker: the connector's Iceberg commit path on a
# JDBC/SQLite catalog in e2e/target/bench, N commit rounds of 100 records (two tasks, one file each),
# once without maintenance and once with a pass (snapshot expiry + compaction) every 50 commits.
# Prints commit latency and metadata size at each checkpoint, scan time of the unmaintained table
# before and after one compaction pass, and the heap in use. Options: --commits 100,1000,5000
# (checkpoints; the last is the number of commits), --modes off,on, --maintain-every 50,
# --expire-max-age-ms 1000, --expire-min-snapshots 100, --records-per-commit 100.
# JAVA_OPTS (default -Xmx2g) goes to the JVM.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
(cd "$ROOT" && ./mvnw -q -B -DskipTests package)
# The Connect API (SinkRecord) is provided by a worker elsewhere; here it comes from the build.
exec java ${JAVA_OPTS:--Xmx2g} -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$ROOT/e2e/target/classes:$(cat "$ROOT/e2e/target/launcher-classpath.txt"):$(cat "$ROOT/e2e/target/provided-classpath.txt")" \
  io.streamhouse.e2e.bench.MaintenanceBenchmark --repo-root "$ROOT" "$@"
