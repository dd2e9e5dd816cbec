#!/usr/bin/env bash
# Sink benchmark: drains a backlog of realistic records (BenchRecords: JSON with schemas, 11 leaf columns,
# one table) with our sink (1 and 2 tasks), a do-nothing sink and the Apache Iceberg sink 1.12.0, each in a
# fresh Connect worker JVM, and prints records/s, MB/s, peak worker memory and commit latency.
# Options: --records N (default 1000000), --partitions N (default 4), --commit-interval-ms N (default 2000,
# for both table sinks; the only non-default setting), --worker-version V (the Kafka worker of our sink;
# default 4.3.1, the Apache sink's, so that both run on the same worker), --repeat N (each configuration
# N times, the sinks taking turns; compared by medians), --skip-apache, --skip-ceiling (no do-nothing runs),
# --streamhouse-plugin DIR (the unpacked plugin of another build, to compare two builds; default this one's),
# --kafka-metadata LIST (our sink writes these Kafka metadata fields, e.g. topic,partition,offset,timestamp,key,headers;
# with headers every record of the backlog gets two small headers, for every sink),
# --value-converter CLASS (e.g. io.streamhouse.connect.converter.FastJsonConverter) instead of Connect's
# JsonConverter for the sinks --value-converter-for names (streamhouse,apache,do-nothing; default streamhouse),
# --warm-up-records N (before each drain the same sink drains the first N records into another table in the
# same worker JVM: the measured drain runs in a worker whose JIT already compiled that sink's path; default 0),
# --initial-rebalance-delay-ms N (the broker's group.initial.rebalance.delay.ms; default 0 as in the e2e
# harness, the broker's own default is 3000), --broker-warm-up true|false (default true: before the measured
# drains the do-nothing sink drains the backlog once, unmeasured, so that the broker's fetch path is compiled
# and the topic's segments are in the page cache for every sink measured, the first one too).
# About 5 minutes per repetition for 1M records on 2 cores.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
(cd "$ROOT" && ./mvnw -q -B -DskipTests package)
exec java -cp "$ROOT/e2e/target/classes:$(cat "$ROOT/e2e/target/launcher-classpath.txt")" \
  io.streamhouse.e2e.bench.SinkBenchmark --repo-root "$ROOT" "$@"
