#!/usr/bin/env bash
# JIT on vs off on the churned real-DuckLake catalog (issue 23): check, metrics, one serve collection.
# Usage: scripts/jit-postgres.sh; createdb churn; .venv-interop/bin/python demo/src/test/python/churn_catalog.py
#   "host=127.0.0.1 port=$PORT dbname=churn user=postgres" churn_bench /tmp/churn-data/ 900; then this script
#   (after mvn package). Prints wall time per command (serve: its first collection) and pg_stat_statements' jit_functions.
set -u
PORT="${DUCKLAKE_JANITOR_JIT_PG_PORT:-55435}"; DB="${DB:-churn}"; SCHEMA="${SCHEMA:-churn_bench}"; JAR="$(cd "$(dirname "$0")/.." && pwd)/target/ducklake-janitor.jar"
CAT="postgresql://postgres@127.0.0.1:$PORT/$DB"
P="psql -X -q -t -A -h 127.0.0.1 -p $PORT -U postgres -d $DB"
$P -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
jitf() { $P -c "SELECT coalesce(sum(jit_functions),0), round(sum(total_exec_time)::numeric/1000,3) FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname='$DB')"; }
run() { # mode cmd
  local mode=$1 cmd=$2 t0 t1 extra=""
  [[ $mode == off ]] && export PGOPTIONS="-c jit=off" || unset PGOPTIONS
  $P -c "SELECT pg_stat_statements_reset()" >/dev/null
  t0=$(date +%s.%N)
  if [[ $cmd == serve ]]; then
    java -jar $JAR serve --catalog "$CAT" --metadata-schema $SCHEMA --listen 127.0.0.1:19191 --interval 3600 > /tmp/serve.out 2>&1 &
    local pid=$!
    for i in $(seq 1 600); do
      v=$(curl -s 127.0.0.1:19191/metrics 2>/dev/null | grep '^ducklake_janitor_scrape_duration_seconds' | head -1 | awk '{print $2}')
      [[ -n "$v" ]] && break; sleep 0.5
    done
    kill $pid; wait $pid 2>/dev/null
    extra="collection=${v}s"
  else
    java -jar $JAR $cmd --catalog "$CAT" --metadata-schema $SCHEMA > /dev/null 2>&1; extra="rc=$?"
  fi
  t1=$(date +%s.%N)
  printf "%s jit=%s wall=%.2f %s jit_functions|exec_s=%s\n" $cmd $mode $(echo "$t1 - $t0" | bc) "$extra" "$(jitf)"
}
for round in 1 2 3 4; do
  for cmd in check metrics serve; do
    if (( round % 2 )); then run on $cmd; run off $cmd; else run off $cmd; run on $cmd; fi
  done
done
