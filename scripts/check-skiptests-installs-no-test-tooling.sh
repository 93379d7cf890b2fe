#!/usr/bin/env bash
# Issue 24, proven on the real build: building the jar never installs test tooling, the test command still does, and a
# second build without `clean` prints no shade warnings.
#
#   scripts/check-skiptests-installs-no-test-tooling.sh     # from anywhere; exits non-zero naming what failed
#
# 1. `mvn -B -DskipTests package` (the README's build, run on a target/ that already holds a shaded jar: a second build
#    without clean) skips the install of the DuckDB test environments and prints no overlapping-class warning;
# 2. `-Dmaven.test.skip=true` skips the install too;
# 3. without either flag the install step runs (as in `mvn -B verify`).
# The environments are pointed at an empty temporary folder and PYTHON at a missing interpreter, so nothing is installed
# or downloaded whatever happens: a run of the install step shows as its own "install-ducklake-test-env: " lines.
# Extra Maven flags (e.g. -o) may be passed as arguments. Takes about a minute (one shade of the jar).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export DUCKLAKE_JANITOR_INTEROP_VENV="$tmp/venv" DUCKLAKE_JANITOR_INTEROP_RELEASES="$tmp/releases" PYTHON="$tmp/no-python3"
mvn=(mvn -B "$@")
fail() { echo "check-skiptests-installs-no-test-tooling: FAILED: $*" >&2; exit 1; }
installed() { grep -q '^install-ducklake-test-env: \|^\[INFO\] install-ducklake-test-env: ' "$1" || [ -e "$tmp/venv" ] || [ -e "$tmp/releases" ]; }

if [ ! -f target/ducklake-janitor.jar ]; then
    "${mvn[@]}" -q -DskipTests package >"$tmp/first.log" 2>&1 || { cat "$tmp/first.log"; fail "the first build failed"; }
fi
"${mvn[@]}" -DskipTests package >"$tmp/package.log" 2>&1 || { cat "$tmp/package.log"; fail "mvn -DskipTests package failed"; }
grep -q 'skipping execute as per configuration' "$tmp/package.log" || fail "-DskipTests: the install step did not say it skipped"
installed "$tmp/package.log" && fail "-DskipTests package ran the install of the DuckDB test environments"
warnings="$(grep -c '^\[WARNING\].*overlapping' "$tmp/package.log" || true)"
[ "$warnings" = 0 ] || { grep '^\[WARNING\]' "$tmp/package.log" | head -20; fail "a second build without clean printed $warnings overlap warnings"; }
echo "ok: -DskipTests package (second build without clean): install skipped, 0 shade warnings"

"${mvn[@]}" -Dmaven.test.skip=true process-test-classes >"$tmp/skip.log" 2>&1 || { cat "$tmp/skip.log"; fail "mvn -Dmaven.test.skip=true failed"; }
installed "$tmp/skip.log" && fail "-Dmaven.test.skip=true ran the install of the DuckDB test environments"
echo "ok: -Dmaven.test.skip=true: install skipped"

"${mvn[@]}" process-test-classes >"$tmp/tests.log" 2>&1 || { cat "$tmp/tests.log"; fail "mvn process-test-classes failed"; }
installed "$tmp/tests.log" || fail "without -DskipTests the install step did not run (mvn -B verify must still install)"
echo "ok: without -DskipTests the install step runs"
