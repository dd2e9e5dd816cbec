#!/usr/bin/env bash
# Development probe (not a published benchmark): one task's write path and the coordinator's commit
# path in one JVM, no Kafka or Connect; see InProcessFanout. Example:
#   e2e/probe-fanout.sh --format paimon --tables 200 --records 300000 [--set.route.r.buckets 1]
# JAVA_OPTS adds JVM flags (default -Xmx1g), for example a JFR recording.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
(cd "$ROOT" && ./mvnw -q -B -DskipTests package)
exec java ${JAVA_OPTS:--Xmx1g} -Dorg.slf4j.simpleLogger.showDateTime=true \
  -cp "$ROOT/e2e/target/classes:$(cat "$ROOT/e2e/target/launcher-classpath.txt"):$(cat "$ROOT/e2e/target/provided-classpath.txt")" \
  io.streamhouse.e2e.bench.InProcessFanout "$@"
