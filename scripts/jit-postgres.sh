#!/usr/bin/env bash
# Starts (or reuses) a throwaway PostgreSQL cluster with JIT on, for the tests that must run on a server
# configured like production ones (Debian's, PGDG's and the official images all ship llvmjit with jit = on).
#
#   scripts/jit-postgres.sh            # start (idempotent), print the connection string on stdout
#   scripts/jit-postgres.sh stop       # stop the cluster (the data directory stays for the next start)
#
# Uses the server binaries of Debian's `postgresql` package (/usr/lib/postgresql/<major>/bin, newest major, or
# PG_BINDIR), a data directory under ${DUCKLAKE_JANITOR_JIT_PG_DIR:-/tmp/ducklake-janitor-jit-pg}, loopback only,
# port ${DUCKLAKE_JANITOR_JIT_PG_PORT:-55435}, trust authentication for loopback (a test server: never expose it).
# Settings: jit = on with the default jit_above_cost, pg_stat_statements preloaded (the tests read its
# jit_functions column to prove no statement of the janitor was JIT-compiled), fsync off (throwaway data).
# As root it runs the server as the `postgres` system user (initdb refuses root). Exits non-zero with a message
# when no server binaries are installed or the server has no JIT provider.
set -euo pipefail

DIR="${DUCKLAKE_JANITOR_JIT_PG_DIR:-/tmp/ducklake-janitor-jit-pg}"
PORT="${DUCKLAKE_JANITOR_JIT_PG_PORT:-55435}"
DATA="$DIR/data"
LOG="$DIR/server.log"

fail() {
    echo "jit-postgres: ERROR: $*" >&2
    exit 1
}

if [[ -z "${PG_BINDIR:-}" ]]; then
    PG_BINDIR="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
fi
[[ -n "$PG_BINDIR" && -x "$PG_BINDIR/pg_ctl" ]] || fail "no PostgreSQL server binaries (install Debian's 'postgresql' package or set PG_BINDIR)"

as_owner() {
    if [[ "$(id -u)" == 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

if [[ "${1:-start}" == "stop" ]]; then
    if [[ -f "$DATA/postmaster.pid" ]]; then
        as_owner "$PG_BINDIR/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null
    fi
    exit 0
fi

if [[ ! -f "$DATA/PG_VERSION" ]]; then
    mkdir -p "$DIR"
    [[ "$(id -u)" == 0 ]] && chown postgres: "$DIR"
    as_owner "$PG_BINDIR/initdb" -D "$DATA" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null \
        || fail "initdb failed"
    cat >>"$DATA/postgresql.conf" <<EOF
# ducklake-janitor JIT test server
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$DIR'
jit = on
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
max_locks_per_transaction = 1024
EOF
fi

if ! as_owner "$PG_BINDIR/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
    as_owner "$PG_BINDIR/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 start >/dev/null \
        || { tail -20 "$LOG" >&2 || true; fail "the server did not start (log: $LOG)"; }
fi

export PGOPTIONS="-c client_min_messages=warning"
PSQL=("$PG_BINDIR/psql" -X -q -t -A -h 127.0.0.1 -p "$PORT" -U postgres -d postgres)
"${PSQL[@]}" -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
[[ "$("${PSQL[@]}" -c "SELECT pg_jit_available()")" == "t" ]] \
    || fail "the server at 127.0.0.1:$PORT has no JIT provider (llvmjit.so missing from $PG_BINDIR/../lib)"
echo "postgresql://postgres@127.0.0.1:$PORT/postgres"
