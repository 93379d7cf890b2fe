#!/usr/bin/env bash
# compact on a table of N small files written by real DuckLake (issue 26's bound), against DuckLake's own CHECKPOINT on
# an identical copy, in one run. Usage (after mvn package and scripts/install-ducklake-test-env.sh):
#   DUCKLAKE_JANITOR_JIT_PG_PORT=55501 scripts/jit-postgres.sh
#   createdb many_100000; .venv-interop/bin/python demo/src/test/python/many_files_catalog.py \
#       "host=127.0.0.1 port=55501 dbname=many_100000 user=postgres" lake_meta /tmp/many-data/100000/ 100000
#   PORT=55501 scripts/compact-many-files-bench.sh 100000 [25000 ...]
# CAP=500 sets the capped run's --max-input-files; JAR=/path/ducklake-janitor.jar runs another build (e.g. the commit
# before a change, for a before/after in one session).
# For each N: three TEMPLATE copies of many_N; DuckLake's CHECKPOINT (DuckDB's default memory limit) on the first, the
# janitor's compact with --max-input-files $CAP (default 2000; capped passes) and without a cap on the others, each at -Xmx128m and
# DuckDB's 192MiB default. Prints wall seconds, peak RSS (MiB, the whole process: JVM and DuckDB in one) and the live
# files and rows left.
set -u
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PORT="${PORT:-55501}"; SCHEMA=lake_meta
JAR="${JAR:-$ROOT/target/ducklake-janitor.jar}"; PY="$ROOT/.venv-interop/bin/python"; CAP="${CAP:-2000}"
EXT="$(dirname "$("$PY" -c 'import duckdb; print(duckdb.__file__)')")/.."
P="psql -X -q -t -A -h 127.0.0.1 -p $PORT -U postgres"
live() { $P -d "$1" -c "SELECT count(*) || ' files, ' || sum(record_count) || ' rows' FROM $SCHEMA.ducklake_data_file WHERE end_snapshot IS NULL"; }
measure() { # label db cmd...
  local label=$1 db=$2; shift 2
  /usr/bin/time -f "%e %M" -o /tmp/bench.time "$@" > "/tmp/bench-$label.out" 2> "/tmp/bench-$label.err"
  local rc=$? t m; read -r t m < /tmp/bench.time
  printf "%-18s N=%-7s rc=%s wall=%7.1fs rss=%5d MiB  %s\n" "$label" "$N" "$rc" "$t" $((m / 1024)) "$(live "$db")"
}
for N in "$@"; do
  for c in a b c; do $P -d postgres -c "DROP DATABASE IF EXISTS many_${N}_$c" -c "CREATE DATABASE many_${N}_$c TEMPLATE many_$N" >/dev/null; done
  echo "N=$N source: $(live many_$N)"
  measure duckdb-checkpoint "many_${N}_a" "$PY" -c "
import duckdb, glob
con = duckdb.connect(config={'autoinstall_known_extensions': False, 'autoload_known_extensions': False})
for e in ('postgres_scanner', 'ducklake'):
    con.execute(\"LOAD '%s'\" % sorted(glob.glob('$EXT/**/%s.duckdb_extension' % e, recursive=True))[0])
con.execute(\"ATTACH 'ducklake:postgres:host=127.0.0.1 port=$PORT dbname=many_${N}_a user=postgres' AS lake (METADATA_SCHEMA '$SCHEMA')\")
con.execute('USE lake')
con.execute('CHECKPOINT')"
  for c in b c; do
    cap=(); [[ $c == b ]] && cap=(--max-input-files "$CAP")
    measure "janitor-${cap[1]:-uncapped}" "many_${N}_$c" java -Xmx128m -jar "$JAR" compact --catalog \
      "postgresql://postgres@127.0.0.1:$PORT/many_${N}_$c" --metadata-schema $SCHEMA --yes --output json \
      --duckdb-extension-dir "$EXT" "${cap[@]}"
    "$PY" -c "import json,sys; j=json.load(open(sys.argv[1])); t=j['tables'][0] if j.get('tables') else {}; print('    passes', t.get('passes'), 'calls', j.get('calls_issued'), 'seconds in calls', round(t.get('seconds', 0), 1))" \
      "/tmp/bench-janitor-${cap[1]:-uncapped}.out"
  done
done
