#!/usr/bin/env bash
# Key index cost of a large keyed Iceberg table, in one JVM, no broker: a table of --keys keys
# (default 10000000) in --files data files (20), then --writers task writers (2) open on it, each
# reading its own key index as the tasks of one worker do, then each committing --changes upserts
# (200000) of its own keys. Prints each index read's time, the heap the indexes retain (MiB per
# million keys), the heap pools' peak, the commits' decisions and the one-row-per-key check.
# JAVA_OPTS (default -Xmx2g, the benchmark workers' heap) goes to the JVM.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
(cd "$ROOT" && ./mvnw -q -B -DskipTests package)
exec java ${JAVA_OPTS:--Xmx2g} -XX:+UseG1GC -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$ROOT/e2e/target/classes:$(cat "$ROOT/e2e/target/launcher-classpath.txt"):$(cat "$ROOT/e2e/target/provided-classpath.txt")" \
  io.streamhouse.e2e.bench.KeyIndexBenchmark "$@"
