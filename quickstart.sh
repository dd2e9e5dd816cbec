#!/usr/bin/env bash
# Quickstart: a local Kafka broker + Connect worker with the Streamhouse plugin, the example
# connector from config-examples/quickstart.json and sample data. Ctrl-C stops everything.
#   ./quickstart.sh          build if needed, start, run the example, wait for Ctrl-C
#   ./quickstart.sh --down   stop a stack left running (for example after the launcher was killed)
# Environment: STREAMHOUSE_RUN_DIR (default .run/quickstart), STREAMHOUSE_KAFKA_VERSION (default 4.4.0).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUN_DIR=${STREAMHOUSE_RUN_DIR:-$ROOT/.run/quickstart}
KAFKA_VERSION=${STREAMHOUSE_KAFKA_VERSION:-4.4.0}
CLASSPATH_FILE=$ROOT/e2e/target/launcher-classpath.txt
PLUGIN_DIR=$ROOT/connector/target/plugin-path/streamhouse-connect

launcher() {
  exec java -cp "$ROOT/e2e/target/classes:$(cat "$CLASSPATH_FILE")" io.streamhouse.e2e.Quickstart "$@"
}

needs_build() {
  local jar
  jar=$(ls "$ROOT"/connector/target/streamhouse-connect-*.jar 2>/dev/null | head -1)
  [[ -z "$jar" || ! -f "$CLASSPATH_FILE" || ! -d "$PLUGIN_DIR" || ! -d "$ROOT/e2e/target/classes" ]] && return 0
  # Rebuild when any source, pom or example is newer than the plugin jar of the last build.
  [[ -n "$(find "$ROOT/connector/src" "$ROOT/e2e/src/main" "$ROOT/config-examples" "$ROOT"/pom.xml \
      "$ROOT"/connector/pom.xml "$ROOT"/e2e/pom.xml -newer "$jar" -print -quit)" ]]
}

case "${1:-}" in
  --down)
    [[ -f "$CLASSPATH_FILE" ]] || { echo "Nothing built, so nothing can be running."; exit 0; }
    launcher down --run-dir "$RUN_DIR"
    ;;
  ""|--up)
    if needs_build; then
      echo "Building the plugin and the launcher (./mvnw -q -B -DskipTests package) ..."
      (cd "$ROOT" && ./mvnw -q -B -DskipTests package)
    fi
    launcher up --repo-root "$ROOT" --run-dir "$RUN_DIR" --kafka-version "$KAFKA_VERSION"
    ;;
  *)
    echo "usage: $0 [--down]" >&2
    exit 2
    ;;
esac
