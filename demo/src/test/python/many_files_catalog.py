#!/usr/bin/env python3
"""A DuckLake catalog whose one table has N small data files, written by real DuckLake (issue 26's compaction bound).

Usage: many_files_catalog.py LIBPQ METADATA_SCHEMA DATA_PATH N [ROWS_PER_FILE]

DuckLake writes one Parquet file per INSERT when inlining is off (DATA_INLINING_ROW_LIMIT 0); the INSERTs are grouped
in transactions of 10,000 (one snapshot each), so N files take about 2 ms each. Prints one JSON line with the figures.
Test tooling only (the packaged extensions of requirements-interop.txt), never a runtime dependency of the janitor.
"""
import glob
import json
import os
import sys
import time

import duckdb


def main(argv):
    libpq, schema, data_path, n = argv[1], argv[2], argv[3], int(argv[4])
    rows = int(argv[5]) if len(argv) > 5 else 10
    root = os.path.dirname(duckdb.__file__) + "/.."
    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    for e in ("postgres_scanner", "ducklake"):
        con.execute("LOAD '%s'" % sorted(glob.glob(root + "/**/%s.duckdb_extension" % e, recursive=True))[0])
    con.execute("ATTACH 'ducklake:postgres:%s' AS lake (METADATA_SCHEMA '%s', DATA_PATH '%s', DATA_INLINING_ROW_LIMIT 0)"
                % (libpq.replace("'", "''"), schema, data_path))
    con.execute("CREATE TABLE IF NOT EXISTS lake.t(id BIGINT, v VARCHAR)")
    t0 = time.monotonic()
    i = 0
    while i < n:
        con.execute("BEGIN")
        for _ in range(min(10_000, n - i)):
            con.execute("INSERT INTO lake.t SELECT %d * %d + r, 'v' || r FROM range(%d) x(r)" % (i, rows, rows))
            i += 1
        con.execute("COMMIT")
    files = con.execute("SELECT count(*) FROM ducklake_list_files('lake', 't')").fetchone()[0]
    print(json.dumps({"files": files, "rows": n * rows, "seconds": round(time.monotonic() - t0, 1)}))


if __name__ == "__main__":
    main(sys.argv)
