#!/usr/bin/env bash
# Installs real DuckDB + DuckLake (Python packages, pinned) for the interop tests.
#
#   scripts/install-ducklake-test-env.sh            # creates/refreshes .venv-interop/
#   DUCKLAKE_JANITOR_INTEROP_VENV=/some/dir scripts/install-ducklake-test-env.sh
#
# Idempotent: when the venv already has the pinned packages and the packaged extensions
# load, it changes nothing and needs no network. Otherwise it creates the venv and runs
# pip against the package index. Exits non-zero with a clear message when it cannot.
# The venv lives outside target/ so that `mvn clean` does not remove it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${DUCKLAKE_JANITOR_INTEROP_VENV:-$ROOT/.venv-interop}"
REQ="$ROOT/src/test/python/requirements-interop.txt"
DRIVER="$ROOT/src/test/python/ducklake_driver.py"
PY="${PYTHON:-python3}"

fail() {
    echo "install-ducklake-test-env: ERROR: $*" >&2
    echo "install-ducklake-test-env: the interop tests against real DuckLake cannot run on this machine." >&2
    exit 1
}

[ -f "$REQ" ] || fail "missing $REQ"
[ -f "$DRIVER" ] || fail "missing $DRIVER"

pins_satisfied() {
    [ -x "$VENV/bin/python" ] || return 1
    local installed
    installed="$("$VENV/bin/python" -m pip freeze --disable-pip-version-check 2>/dev/null | tr '[:upper:]_' '[:lower:]-')" || return 1
    local line pkg
    while IFS= read -r line; do
        line="${line%%#*}"
        line="$(echo "$line" | tr -d '[:space:]')"
        [ -z "$line" ] && continue
        pkg="$(echo "$line" | tr '[:upper:]_' '[:lower:]-')"
        grep -qx -- "$pkg" <<<"$installed" || return 1
    done <"$REQ"
    return 0
}

self_check() {
    local out
    if out="$("$VENV/bin/python" "$DRIVER" --check 2>&1)"; then
        echo "install-ducklake-test-env: OK: $out"
        return 0
    fi
    echo "install-ducklake-test-env: self-check failed: $out" >&2
    return 1
}

if pins_satisfied && self_check >/dev/null 2>&1; then
    echo "install-ducklake-test-env: $VENV already has the pinned packages"
    self_check
    exit 0
fi

command -v "$PY" >/dev/null 2>&1 || fail "$PY not found (need Python 3.9+ with the venv module)"
"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' \
    || fail "$PY is older than 3.9"

if [ ! -x "$VENV/bin/python" ]; then
    echo "install-ducklake-test-env: creating venv $VENV"
    rm -rf "$VENV"
    if ! "$PY" -m venv "$VENV"; then
        rm -rf "$VENV"
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "install-ducklake-test-env: '$PY -m venv' failed; installing Debian's python3-venv"
            { apt-get update -qq && apt-get install -y -qq python3-venv; } >&2 \
                || fail "apt-get install python3-venv failed"
            "$PY" -m venv "$VENV" || fail "'$PY -m venv' failed even with python3-venv installed"
        else
            fail "'$PY -m venv' failed (on Debian: apt-get install -y python3-venv)"
        fi
    fi
fi

echo "install-ducklake-test-env: installing $(grep -v '^#' "$REQ" | grep -v '^$' | tr '\n' ' ')"
"$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$REQ" \
    || fail "pip install -r $REQ failed (is the Python package index reachable?)"

self_check || fail "the packaged DuckDB extensions did not load from $VENV"
