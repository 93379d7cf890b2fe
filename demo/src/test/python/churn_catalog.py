"""Churns a real DuckLake catalog on PostgreSQL the way sync jobs do, for a wall-clock budget (benchmark input).

Usage: churn_catalog.py "<libpq conninfo>" <metadata_schema> <data_path/> <seconds>
Each round: inserts into 5 of 20 live tables (3, 20 or 800 rows: inlined or a Parquet file), a delete, DROP +
CREATE + ALTER of 3 of 10 sync tables; a flush every 25 rounds, a merge every 50."""
import sys, time, random
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ducklake_driver import connect

conninfo, schema, data, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
con, v = connect()
print("versions", v, flush=True)
con.execute(f"ATTACH 'ducklake:postgres:{conninfo}' AS lake (METADATA_SCHEMA '{schema}', DATA_PATH '{data}', DATA_INLINING_ROW_LIMIT 500)")
rnd = random.Random(7)
LIVE = [f"live_{i}" for i in range(20)]
SYNC = [f"sync_{i}" for i in range(10)]
for t in LIVE:
    con.execute(f"CREATE TABLE IF NOT EXISTS lake.{t}(id BIGINT, name VARCHAR, amount DOUBLE, happened_at TIMESTAMP)")
start = time.time(); r = 0; nid = 1
while time.time() - start < seconds:
    for t in rnd.sample(LIVE, 5):
        n = rnd.choice([3, 20, 800])   # 800 rows > inlining limit: a Parquet file
        con.execute(f"INSERT INTO lake.{t} SELECT {nid} + i, 'n' || i, i * 1.5, TIMESTAMP '2026-01-01' + INTERVAL (i) SECOND FROM range({n}) t(i)")
        nid += n
    t = rnd.choice(LIVE)
    con.execute(f"DELETE FROM lake.{t} WHERE id % 7 = {r % 7} AND id > {nid} - 2000")
    for t in rnd.sample(SYNC, 3):
        con.execute(f"DROP TABLE IF EXISTS lake.{t}")
        con.execute(f"CREATE TABLE lake.{t}(id INTEGER, v VARCHAR)")
        con.execute(f"INSERT INTO lake.{t} SELECT i, 'r{r}' FROM range(10) t(i)")
        con.execute(f"ALTER TABLE lake.{t} ADD COLUMN qty INTEGER")
        con.execute(f"INSERT INTO lake.{t} VALUES ({r}, 'y', {r})")
    if r % 25 == 24:
        con.execute("CALL ducklake_flush_inlined_data('lake')")
    if r % 50 == 49:
        con.execute("CALL ducklake_merge_adjacent_files('lake')")
    r += 1
    if r % 20 == 0:
        print("round", r, "elapsed", int(time.time() - start), flush=True)
print("rounds", r, flush=True)
