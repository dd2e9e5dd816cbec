#!/usr/bin/env bash
# Converter microbenchmark, in one JVM, no broker: Kafka's JsonConverter against the plugin's
# FastJsonConverter on the bytes of the drain benchmark's BenchRecords (JSON with schemas), taking
# turns round by round after a check that both read every record alike. Prints ns/record and
# records/s per round and the medians. Options: --records 50000, --rounds 20, --warmup-rounds 5.
# JAVA_OPTS (default -Xmx1g) goes to the JVM; run it under `nice -n 19` on a shared machine.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
(cd "$ROOT" && ./mvnw -q -B -DskipTests package)
# The Connect API is provided by a worker elsewhere; here it comes from the build.
exec java ${JAVA_OPTS:--Xmx1g} -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$ROOT/e2e/target/classes:$(cat "$ROOT/e2e/target/launcher-classpath.txt"):$(cat "$ROOT/e2e/target/provided-classpath.txt")" \
  io.streamhouse.e2e.bench.ConverterBenchmark "$@"
