#!/usr/bin/env bash
# cleanup-old-files as whole processes (issue 27), interleaved on identical trees made anew before every run: this build
# (JAR, default target/), optionally another build (BEFORE_JAR: the commit before a change), the same build at -Xmx128m
# (G1, the JVM's default collector, and the serial collector: the one-shot profile of docs/operating.md),
# DuckLake's own ducklake_cleanup_old_files (through demo/src/test/python/ducklake_driver.py: python, DuckDB, ATTACH and the
# call) and find -delete (the unlink floor). Each tree: N files of 16 bytes in one folder, N queue rows 3 days old.
# Usage (after mvn package and scripts/install-ducklake-test-env.sh, a PostgreSQL on PORT with trust auth for postgres):
#   DUCKLAKE_JANITOR_JIT_PG_PORT=55501 scripts/jit-postgres.sh
#   PORT=55501 scripts/cleanup-old-files-bench.sh 50000,100000 3
# Prints one line per run: label, wall s, user s, sys s, peak RSS KiB (/usr/bin/time), exit code, files left.
set -u
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PORT="${PORT:-55501}"; SIZES="${1:-50000,100000}"; RUNS="${2:-3}"
JAR="${JAR:-$ROOT/target/ducklake-janitor.jar}"; BEFORE_JAR="${BEFORE_JAR:-}"
PY="$ROOT/.venv-interop/bin/python"; DRV="$ROOT/demo/src/test/python/ducklake_driver.py"
W="${WORK:-$(mktemp -d /tmp/cof-bench-XXXXXX)}"
P="psql -X -q -h 127.0.0.1 -p $PORT -U postgres"
for d in cof_bench_jan cof_bench_duck; do
  $P -d postgres -c "DROP DATABASE IF EXISTS $d" -c "CREATE DATABASE $d" || exit 1
  mkdir -p "$W/$d"
  echo "{\"steps\":[{\"attach\":{\"libpq\":\"host=127.0.0.1 port=$PORT dbname=$d user=postgres\",\"alias\":\"lake\",\"data_path\":\"$W/$d/\"}},{\"sql\":\"CREATE TABLE lake.t(i INTEGER)\"}]}" > "$W/create_$d.json"
  "$PY" "$DRV" "$W/create_$d.json" | grep -q '"ok": true' || { echo "DuckLake could not create $d"; exit 1; }
done
echo "{\"steps\":[{\"attach\":{\"libpq\":\"host=127.0.0.1 port=$PORT dbname=cof_bench_duck user=postgres\",\"alias\":\"lake\",\"data_path\":\"$W/cof_bench_duck/\"}},{\"query\":\"SELECT count(*) FROM ducklake_cleanup_old_files('lake', cleanup_all => true)\"}]}" > "$W/duck.json"
seed() { # seed N DIR [DB]
  rm -rf "$2/main/q"; mkdir -p "$2/main/q"
  python3 -c "import sys,os
d=sys.argv[2]
for i in range(int(sys.argv[1])):
    open(os.path.join(d, 'f%d.parquet' % i), 'wb').write(b'x' * 16)" "$1" "$2/main/q"
  if [ -n "${3:-}" ]; then
    $P -d "$3" -c "TRUNCATE ducklake_files_scheduled_for_deletion" -c "INSERT INTO ducklake_files_scheduled_for_deletion
      SELECT 100000000 + g, 'main/q/f' || g || '.parquet', true, now() - interval '3 days' FROM generate_series(0, $1 - 1) g" \
      -c "VACUUM ANALYZE ducklake_files_scheduled_for_deletion"
  fi
  sync
}
t() { /usr/bin/time -f "%e %U %S %M" -o "$W/time" "$@" >"$W/out" 2>"$W/err"; local rc=$?; echo "$(tail -1 "$W/time") rc=$rc"; }
CAT="host=127.0.0.1 port=$PORT dbname=cof_bench_jan user=postgres"
for n in ${SIZES//,/ }; do for r in $(seq 1 "$RUNS"); do
  seed "$n" "$W/cof_bench_jan" cof_bench_jan
  echo "n=$n run=$r after    $(t java -jar "$JAR" cleanup-old-files --catalog "$CAT" --yes) left=$(ls "$W/cof_bench_jan/main/q" | wc -l)"
  seed "$n" "$W/cof_bench_duck" cof_bench_duck
  echo "n=$n run=$r duckdb   $(t "$PY" "$DRV" "$W/duck.json") left=$(ls "$W/cof_bench_duck/main/q" | wc -l)"
  if [ -n "$BEFORE_JAR" ]; then
    seed "$n" "$W/cof_bench_jan" cof_bench_jan
    echo "n=$n run=$r before   $(t java -jar "$BEFORE_JAR" cleanup-old-files --catalog "$CAT" --yes) left=$(ls "$W/cof_bench_jan/main/q" | wc -l)"
  fi
  seed "$n" "$W/cof_bench_jan" cof_bench_jan
  echo "n=$n run=$r after128 $(t java -Xmx128m -jar "$JAR" cleanup-old-files --catalog "$CAT" --yes) left=$(ls "$W/cof_bench_jan/main/q" | wc -l)"
  seed "$n" "$W/cof_bench_jan" cof_bench_jan
  echo "n=$n run=$r serial128 $(t java -Xmx128m -XX:+UseSerialGC -jar "$JAR" cleanup-old-files --catalog "$CAT" --yes) left=$(ls "$W/cof_bench_jan/main/q" | wc -l)"
  seed "$n" "$W/floor"
  echo "n=$n run=$r find     $(t find "$W/floor/main/q" -type f -delete) left=$(ls "$W/floor/main/q" | wc -l) load=$(cut -d' ' -f1 /proc/loadavg)"
done; done
