#!/usr/bin/env bash
# Installs real DuckDB + DuckLake (Python packages, pinned) for the interop tests: one venv per release.
#
#   scripts/install-ducklake-test-env.sh              # every environment below
#   scripts/install-ducklake-test-env.sh 1.5.2 1.4.4  # only these releases ("current" = the 1.5.5 one)
#
#   current (1.5.5)  demo/src/test/python/requirements-interop.txt        -> .venv-interop/
#                    (DUCKLAKE_JANITOR_INTEROP_VENV overrides the location)
#   old, leaking     demo/src/test/python/requirements-interop-<rel>.txt  -> .venv-interop-releases/<rel>/
#                    (DUCKLAKE_JANITOR_INTEROP_RELEASES overrides the folder), today 1.5.2 and 1.4.4
#   format-1.1       a DuckLake build for DuckDB 2.x (writes format 1.1), if the package index has one:
#                    asks `pip index versions` for duckdb-extension-ducklake and duckdb; when both have a 2.x
#                    release it installs the newest such pair (+ postgres scanner, pytz) into
#                    .venv-interop-releases/format-1.1/; otherwise it writes why into
#                    .venv-interop-releases/format-1.1.unavailable and carries on (not an error: the format 1.1
#                    tests then run on catalogs migrated by the test support, and RealDuckLake11InteropTest skips)
#
# Idempotent: a venv that already has its pinned packages and whose packaged extensions load is left
# untouched and needs no network. Otherwise the venv is created and pip runs against the package index.
# Each venv is checked to run the DuckDB version its requirements file pins. Exits non-zero with a
# clear message when an environment cannot be installed. The venvs live outside target/ so that
# `mvn clean` keeps them.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYDIR="$ROOT/demo/src/test/python"
DRIVER="$PYDIR/ducklake_driver.py"
RELEASES_DIR="${DUCKLAKE_JANITOR_INTEROP_RELEASES:-$ROOT/.venv-interop-releases}"
PY="${PYTHON:-python3}"

fail() {
    echo "install-ducklake-test-env: ERROR: $*" >&2
    echo "install-ducklake-test-env: the interop tests against real DuckLake cannot run on this machine." >&2
    exit 1
}

[ -f "$DRIVER" ] || fail "missing $DRIVER"

# pins_satisfied VENV REQ: every pinned line of REQ appears in the venv's pip freeze
pins_satisfied() {
    local venv="$1" req="$2"
    [ -x "$venv/bin/python" ] || return 1
    local installed
    installed="$("$venv/bin/python" -m pip freeze --disable-pip-version-check 2>/dev/null | tr '[:upper:]_' '[:lower:]-')" || return 1
    local line pkg
    while IFS= read -r line; do
        line="${line%%#*}"
        line="$(echo "$line" | tr -d '[:space:]')"
        [ -z "$line" ] && continue
        pkg="$(echo "$line" | tr '[:upper:]_' '[:lower:]-')"
        grep -qx -- "$pkg" <<<"$installed" || return 1
    done <"$req"
    return 0
}

# pinned_duckdb REQ: the version after duckdb== in REQ
pinned_duckdb() {
    sed -n 's/^[[:space:]]*duckdb[[:space:]]*==[[:space:]]*\([0-9][0-9.]*\).*/\1/p' "$1" | head -n 1
}

# self_check VENV REQ: the extensions load, and DuckDB is the pinned version
self_check() {
    local venv="$1" req="$2" out want
    want="$(pinned_duckdb "$req")"
    if out="$("$venv/bin/python" "$DRIVER" --check 2>&1)" \
        && grep -q "\"duckdb_version\": \"$want\"" <<<"$out"; then
        echo "install-ducklake-test-env: OK ($venv): $out"
        return 0
    fi
    echo "install-ducklake-test-env: self-check of $venv failed (want DuckDB $want): $out" >&2
    return 1
}

make_venv() {
    local venv="$1"
    echo "install-ducklake-test-env: creating venv $venv"
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    if ! "$PY" -m venv "$venv"; then
        rm -rf "$venv"
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "install-ducklake-test-env: '$PY -m venv' failed; installing Debian's python3-venv"
            { apt-get update -qq && apt-get install -y -qq python3-venv; } >&2 \
                || fail "apt-get install python3-venv failed"
            "$PY" -m venv "$venv" || fail "'$PY -m venv' failed even with python3-venv installed"
        else
            fail "'$PY -m venv' failed (on Debian: apt-get install -y python3-venv)"
        fi
    fi
}

# install_env VENV REQ
install_env() {
    local venv="$1" req="$2"
    [ -f "$req" ] || fail "missing $req"
    if pins_satisfied "$venv" "$req" && self_check "$venv" "$req" >/dev/null 2>&1; then
        echo "install-ducklake-test-env: $venv already has the pinned packages of $(basename "$req")"
        self_check "$venv" "$req"
        return 0
    fi
    command -v "$PY" >/dev/null 2>&1 || fail "$PY not found (need Python 3.9+ with the venv module)"
    "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' \
        || fail "$PY is older than 3.9"
    [ -x "$venv/bin/python" ] || make_venv "$venv"
    echo "install-ducklake-test-env: installing into $venv: $(grep -v '^#' "$req" | grep -v '^$' | tr '\n' ' ')"
    "$venv/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$req" \
        || fail "pip install -r $req failed (is the Python package index reachable?)"
    self_check "$venv" "$req" || fail "the packaged DuckDB extensions did not load from $venv, or DuckDB is not the pinned version"
}

# index_versions PKG: the versions the package index offers, newest first, comma-separated ("" when it cannot say)
index_versions() {
    local py="${1}" pkg="${2}"
    "$py" -m pip index versions --disable-pip-version-check "$pkg" 2>/dev/null \
        | sed -n 's/^Available versions: //p' | tr -d ' '
}

# install_format11: a DuckLake build for DuckDB 2.x, or a recorded reason why there is none
install_format11() {
    local venv="$RELEASES_DIR/format-1.1" note="$RELEASES_DIR/format-1.1.unavailable" py ext dd v
    mkdir -p "$RELEASES_DIR"
    # a lookup younger than a day is reused, so that a repeated run needs no network
    if [ -f "$note" ] && [ -z "$(find "$note" -mmin +1440 2>/dev/null)" ] && [ ! -x "$venv/bin/python" ]; then
        echo "install-ducklake-test-env: format-1.1 (looked up within the last day): $(cat "$note")"
        return 0
    fi
    py="${DUCKLAKE_JANITOR_INTEROP_VENV:-$ROOT/.venv-interop}/bin/python"
    [ -x "$py" ] || py="$PY"
    ext="$(index_versions "$py" duckdb-extension-ducklake)"
    dd="$(index_versions "$py" duckdb)"
    v=""
    for cand in ${ext//,/ }; do
        case "$cand" in
            2.*) if [[ ",$dd," == *",$cand,"* ]]; then v="$cand"; break; fi ;;
        esac
    done
    if [ -z "$v" ]; then
        echo "no DuckLake build for DuckDB 2.x on the package index (duckdb-extension-ducklake: ${ext:-none found};" \
            "duckdb: ${dd:-none found}; checked $(date -u +%Y-%m-%dT%H:%M:%SZ))" >"$note"
        echo "install-ducklake-test-env: format-1.1: $(cat "$note")"
        return 0
    fi
    local req="$RELEASES_DIR/format-1.1.requirements.txt"
    printf 'duckdb==%s\nduckdb-extension-ducklake==%s\nduckdb-extension-postgres-scanner==%s\npytz==2026.6\n' "$v" "$v" "$v" >"$req"
    if ( install_env "$venv" "$req" ); then
        rm -f "$note"
    else
        echo "DuckLake $v for DuckDB $v is on the index but did not install or load (see the output above)" >"$note"
        echo "install-ducklake-test-env: format-1.1: $(cat "$note")"
    fi
}

# the releases to install: arguments, or every requirements file
wanted=("$@")
if [ "${#wanted[@]}" -eq 0 ]; then
    wanted=(current format-1.1)
    for req in "$PYDIR"/requirements-interop-*.txt; do
        [ -e "$req" ] || continue
        rel="$(basename "$req" .txt)"
        wanted+=("${rel#requirements-interop-}")
    done
fi

for rel in "${wanted[@]}"; do
    if [ "$rel" = format-1.1 ]; then
        install_format11
    elif [ "$rel" = current ]; then
        install_env "${DUCKLAKE_JANITOR_INTEROP_VENV:-$ROOT/.venv-interop}" "$PYDIR/requirements-interop.txt"
    else
        [[ "$rel" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "unknown environment '$rel' (give a release such as 1.5.2, or 'current')"
        install_env "$RELEASES_DIR/$rel" "$PYDIR/requirements-interop-$rel.txt"
    fi
done

# the summary CI prints: which DuckLake builds the interop tests prove against, and which could not be installed
proved=()
missing=()
for rel in "${wanted[@]}"; do
    case "$rel" in
        current) proved+=("DuckLake 1.5.5 (format 1.0)") ;;
        format-1.1)
            if [ -f "$RELEASES_DIR/format-1.1.unavailable" ]; then
                missing+=("format 1.1: $(cat "$RELEASES_DIR/format-1.1.unavailable")")
            else
                proved+=("DuckLake for DuckDB $(sed -n 's/^duckdb==//p' "$RELEASES_DIR/format-1.1.requirements.txt") (format 1.1)")
            fi ;;
        *) proved+=("DuckLake $rel") ;;
    esac
done
echo "install-ducklake-test-env: proving against: $(IFS=';'; echo "${proved[*]}")"
if [ "${#missing[@]}" -gt 0 ]; then
    echo "install-ducklake-test-env: not installable: $(IFS=';'; echo "${missing[*]}")"
fi
