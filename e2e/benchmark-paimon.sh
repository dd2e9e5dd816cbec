#!/usr/bin/env bash
# Paimon upsert benchmark: our sink with 1 and 2 tasks (--tasks 1,2,4) next to a plain Paimon writer loop on the
# same changes (the ceiling). Options: --changes N (default 1000000), --keys N (default 100000),
# --commit-interval-ms N (default 2000), --skip-ceiling (no writer loop). About 5 minutes on 2 cores.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
(cd "$ROOT" && ./mvnw -q -B -DskipTests package)
exec java -cp "$ROOT/e2e/target/classes:$(cat "$ROOT/e2e/target/launcher-classpath.txt")" \
  io.streamhouse.e2e.bench.PaimonBenchmark --repo-root "$ROOT" "$@"
