#!/usr/bin/env bash
# The test command: installs what the tests need when it is missing, then runs ./mvnw -B verify
# (extra arguments go to Maven, e.g. ./test.sh -Dit.test=QuickstartE2E).
#
# Needed beyond Java 17: procps (kill), unzip, curl, Debian's prometheus package (promtool
# included) for PrometheusAlertsE2E, and a Java 21+ runtime for the Nessie server. Missing packages are installed with apt-get as root or through
# passwordless sudo; without either, Prometheus is fetched from the Debian archive into
# .run/tools/ without installing anything (apt-get download + dpkg-deb -x, with apt lists of our own).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo "$@"
  else
    return 1
  fi
}

apt_install() {
  echo "Installing: $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

# Prometheus unpacked under .run/tools/ by a user who may not install packages.
prometheus_without_root() {
  local tools="$PWD/.run/tools" apt="$PWD/.run/tools/apt"
  if [ ! -x "$tools/prometheus/usr/bin/prometheus" ]; then
    echo "Fetching Debian's prometheus package into $tools (no root needed)" >&2
    mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$tools/prometheus"
    local opts=(-o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt" -o "Dir::Cache::archives=$apt/archives"
      -o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)")
    apt-get "${opts[@]}" update -qq >&2
    (cd "$apt/archives" && apt-get "${opts[@]}" download prometheus >&2)
    dpkg-deb -x "$(ls "$apt"/archives/prometheus_*.deb | head -1)" "$tools/prometheus"
  fi
  echo "$tools/prometheus/usr/bin/prometheus"
}

# A Java 21+ runtime for the Nessie catalog server of the atomic-commit e2e tests (the build and
# the worker run on Java 17): JAVA21_HOME, or a JDK under /usr/lib/jvm or /opt.
java21_home() {
  local home version
  for home in ${JAVA21_HOME:-} /usr/lib/jvm/* /opt/java/* /opt/*jdk*; do
    [ -x "$home/bin/java" ] && [ -f "$home/release" ] || continue
    version=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$home/release")
    if [ -n "$version" ] && [ "$version" -ge 21 ]; then
      echo "$home"
      return 0
    fi
  done
  return 1
}

missing=()
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jdk-headless)
[ -x /bin/kill ] || [ -x /usr/bin/kill ] || missing+=(procps)
command -v unzip >/dev/null 2>&1 || missing+=(unzip)
command -v curl >/dev/null 2>&1 || missing+=(curl)
prometheus=/usr/bin/prometheus
[ -x "$prometheus" ] || [ -n "${STREAMHOUSE_TOOLS_WITHOUT_ROOT:-}" ] || missing+=(prometheus)
if [ ${#missing[@]} -gt 0 ] && ! apt_install "${missing[@]}"; then
  echo "Cannot install ${missing[*]} (neither root nor passwordless sudo)" >&2
fi
if [ ! -x "$prometheus" ]; then
  prometheus=$(prometheus_without_root)
fi
command -v java >/dev/null 2>&1 || { echo "Java 17 or newer is needed" >&2; exit 1; }
java21_home >/dev/null || apt_install openjdk-21-jdk-headless || true
JAVA21_HOME=$(java21_home) || {
  echo "A Java 21+ runtime is needed for the Nessie e2e tests: install one, or set JAVA21_HOME" >&2
  exit 1
}
export JAVA21_HOME

java -version
exec ./mvnw -B verify -Dstreamhouse.prometheus="$prometheus" "$@"
