#!/usr/bin/env bash
# Development probe (not a published benchmark): the metadata file an Iceberg table's snapshots make
# every commit write and parse; see MetadataGrowthProbe. Example:
#   e2e/probe-metadata.sh 10 100 500 1440
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
(cd "$ROOT" && ./mvnw -q -B -DskipTests package)
exec java ${JAVA_OPTS:--Xmx1g} -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$ROOT/e2e/target/classes:$(cat "$ROOT/e2e/target/launcher-classpath.txt"):$(cat "$ROOT/e2e/target/provided-classpath.txt")" \
  io.streamhouse.e2e.bench.MetadataGrowthProbe "$@"
