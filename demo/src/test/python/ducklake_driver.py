#!/usr/bin/env python3
"""Generic driver that runs real DuckDB + DuckLake for ducklake-janitor's interop tests.

The Java tests own the scenarios and the assertions; this script only executes what it
is told and reports what happened. It reads ONE JSON document (stdin, or the file named
by the first argument) and prints ONE JSON document on stdout. Nothing else is written
to stdout; diagnostics go to stderr.

Input:
{
  "extensions_dir": optional, where to look for *.duckdb_extension files (default: the
                    duckdb-extension-* packages installed next to duckdb),
  "steps": [ step, ... ],
  "stop_on_error": true          (default true: the first failing step ends the run)
}

Steps (each may carry "name" to label its result):
  {"attach": {"libpq": "host=... port=... dbname=... user=...",   # Postgres metadata catalog
              "alias": "lake",                  (default "lake")
              "data_path": "/dir/",             (DATA_PATH)
              "metadata_schema": "s",           (METADATA_SCHEMA, optional)
              "data_inlining_row_limit": 10,    (DATA_INLINING_ROW_LIMIT, optional)
              "automatic_migration": true,      (AUTOMATIC_MIGRATION, optional)
              "override_data_path": true,       (OVERRIDE_DATA_PATH, optional)
              "read_only": false,
              "snapshot_version": n,            (SNAPSHOT_VERSION, optional)
              "options": {"KEY": value}         (any further ATTACH options, verbatim)},
   "first_query": "SQL"}                        optional: run it right after ATTACH and time
                                                ATTACH and the query separately
  {"sql": "statement"}                          execute; rows are returned if it yields any
  {"sql": [...statements...]}                   execute each in order (rows of the last)
  {"query": "SELECT ..."}                       execute and return rows (sorted if "sort": true)
  {"repeat": "INSERT ... {i} ...",              run with {i} = start, start+1, ... until
   "start": 0, "until_file": path,              until_file exists (or max_iterations /
   "max_iterations": n, "max_seconds": s,       max_seconds reached); writes ready_file after
   "ready_file": path, "min_iterations": k,     the first successful iteration (pausing
   "pause_seconds": s}                          pause_seconds after each); returns the
                                                list of i whose statement committed
  {"detach": "lake"}
  {"sleep": seconds}

"expect_error": true on a step turns a failure into success (the message is reported) and
a success into a failure.

`ducklake_driver.py --check` only loads the extensions and prints their versions.

Output:
{
  "ok": bool, "error": message of the first unexpected failure or null,
  "duckdb_version": "...", "extensions": {"ducklake": "...", "postgres_scanner": "..."},
  "results": [ {"name", "ok", "error", "columns", "rows", "elapsed_ms", ...}, ... ]
}
Values are converted to JSON: numbers, strings, booleans and null as they are; bytes as
hex; everything else (decimals, dates, timestamps, lists, ...) via str().
"""
import decimal
import glob
import json
import os
import sys
import time
import traceback


def _emit(doc):
    sys.stdout.write(json.dumps(doc))
    sys.stdout.write("\n")
    sys.stdout.flush()


def _to_json(value):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return str(value)
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if isinstance(value, decimal.Decimal):
        return str(value)
    return str(value)


def _quote_literal(s):
    return "'" + str(s).replace("'", "''") + "'"


def _option_literal(v):
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, float)):
        return str(v)
    return _quote_literal(v)


def find_extensions(explicit_dir=None):
    """Return {name: path} of the packaged DuckDB extensions (ducklake, postgres_scanner)."""
    import duckdb

    roots = []
    if explicit_dir:
        roots.append(explicit_dir)
    else:
        site = os.path.dirname(os.path.dirname(os.path.abspath(duckdb.__file__)))
        roots.append(site)
    found = {}
    for root in roots:
        for path in glob.glob(os.path.join(root, "**", "*.duckdb_extension"), recursive=True):
            name = os.path.basename(path)[: -len(".duckdb_extension")]
            # prefer the build that matches the running DuckDB
            if name in found and ("v" + duckdb.__version__) not in path:
                continue
            found[name] = path
    return found


def connect(extensions_dir=None):
    import duckdb

    exts = find_extensions(extensions_dir)
    pg = exts.get("postgres_scanner") or exts.get("postgres")
    dl = exts.get("ducklake")
    if not pg or not dl:
        raise RuntimeError(
            "packaged DuckDB extensions not found (need ducklake and postgres_scanner); found: %s"
            % sorted(exts)
        )
    # Never try the extension repository: this machine has no network for it.
    con = duckdb.connect(
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False}
    )
    con.execute("SET TimeZone = 'UTC'")
    con.execute("LOAD " + _quote_literal(pg))
    con.execute("LOAD " + _quote_literal(dl))
    versions = {
        r[0]: r[1]
        for r in con.execute(
            "SELECT extension_name, extension_version FROM duckdb_extensions() "
            "WHERE extension_name IN ('ducklake', 'postgres_scanner') AND loaded"
        ).fetchall()
    }
    return con, versions


def _fetch(cur):
    desc = cur.description
    if desc is None:
        return None, None
    cols = [d[0] for d in desc]
    rows = [[_to_json(v) for v in row] for row in cur.fetchall()]
    return cols, rows


def run_attach(con, step, res):
    a = step["attach"]
    alias = a.get("alias", "lake")
    opts = []
    if a.get("data_path") is not None:
        opts.append("DATA_PATH " + _quote_literal(a["data_path"]))
    if a.get("metadata_schema"):
        opts.append("METADATA_SCHEMA " + _quote_literal(a["metadata_schema"]))
    if a.get("data_inlining_row_limit") is not None:
        opts.append("DATA_INLINING_ROW_LIMIT %d" % int(a["data_inlining_row_limit"]))
    if a.get("automatic_migration"):
        opts.append("AUTOMATIC_MIGRATION TRUE")
    if a.get("override_data_path"):
        opts.append("OVERRIDE_DATA_PATH TRUE")
    if a.get("read_only"):
        opts.append("READ_ONLY")
    if a.get("snapshot_version") is not None:
        opts.append("SNAPSHOT_VERSION %d" % int(a["snapshot_version"]))
    for k, v in (a.get("options") or {}).items():
        opts.append("%s %s" % (k, _option_literal(v)))
    sql = "ATTACH %s AS \"%s\"" % (_quote_literal("ducklake:postgres:" + a["libpq"]), alias)
    if opts:
        sql += " (" + ", ".join(opts) + ")"
    t0 = time.perf_counter()
    con.execute(sql)
    res["attach_ms"] = (time.perf_counter() - t0) * 1000.0
    if step.get("first_query"):
        t1 = time.perf_counter()
        cols, rows = _fetch(con.execute(step["first_query"]))
        res["first_query_ms"] = (time.perf_counter() - t1) * 1000.0
        res["columns"], res["rows"] = cols, rows


def run_repeat(con, step, res):
    template = step["repeat"]
    i = int(step.get("start", 0))
    until_file = step.get("until_file")
    max_iter = step.get("max_iterations")
    max_seconds = float(step.get("max_seconds", 300))
    min_iter = int(step.get("min_iterations", 0))
    ready_file = step.get("ready_file")
    pause = float(step.get("pause_seconds", 0))
    committed, failures = [], []
    deadline = time.monotonic() + max_seconds
    n = 0
    while True:
        if max_iter is not None and n >= int(max_iter):
            break
        if time.monotonic() > deadline:
            break
        if n >= min_iter and until_file and os.path.exists(until_file):
            break
        try:
            con.execute(template.replace("{i}", str(i)))
            committed.append(i)
        except Exception as e:  # keep going; report every failure
            failures.append({"i": i, "error": str(e)})
            if len(failures) > 50:
                break
        if ready_file and n == 0:
            with open(ready_file, "w") as f:
                f.write("ready\n")
        i += 1
        n += 1
        if pause:
            time.sleep(pause)
    res["committed"] = committed
    res["failures"] = failures
    res["iterations"] = n


def run_step(con, step, res):
    if "attach" in step:
        run_attach(con, step, res)
    elif "sql" in step:
        stmts = step["sql"] if isinstance(step["sql"], list) else [step["sql"]]
        cols = rows = None
        for s in stmts:
            cols, rows = _fetch(con.execute(s))
        res["columns"], res["rows"] = cols, rows
    elif "query" in step:
        cols, rows = _fetch(con.execute(step["query"]))
        if step.get("sort") and rows is not None:
            rows.sort(key=lambda r: json.dumps(r))
        res["columns"], res["rows"] = cols, rows
    elif "repeat" in step:
        run_repeat(con, step, res)
    elif "detach" in step:
        con.execute("DETACH \"%s\"" % step["detach"])
    elif "sleep" in step:
        time.sleep(float(step["sleep"]))
    else:
        raise ValueError("unknown step: %s" % json.dumps(step))


def check():
    """--check: load the packaged extensions and report versions (used by the installer)."""
    doc = {"ok": False, "error": None}
    try:
        import duckdb

        doc["duckdb_version"] = duckdb.__version__
        exts = find_extensions()
        doc["extension_files"] = exts
        con, versions = connect()
        doc["extensions"] = versions
        doc["ducklake_functions"] = [
            r[0]
            for r in con.execute(
                "SELECT DISTINCT function_name FROM duckdb_functions() "
                "WHERE function_name LIKE 'ducklake%' ORDER BY 1"
            ).fetchall()
        ]
        con.close()
        doc["ok"] = "ducklake" in versions and "postgres_scanner" in versions
        if not doc["ok"]:
            doc["error"] = "extensions did not load: %s" % versions
    except Exception as e:
        doc["error"] = "%s: %s" % (type(e).__name__, e)
    _emit(doc)
    return 0 if doc["ok"] else 1


def main(argv):
    if len(argv) > 1 and argv[1] == "--check":
        return check()
    doc = {"ok": False, "error": None, "results": []}
    try:
        raw = open(argv[1]).read() if len(argv) > 1 and argv[1] != "-" else sys.stdin.read()
        spec = json.loads(raw)
        import duckdb

        doc["duckdb_version"] = duckdb.__version__
        con, versions = connect(spec.get("extensions_dir"))
        doc["extensions"] = versions
        stop_on_error = spec.get("stop_on_error", True)
        failed = False
        for idx, step in enumerate(spec.get("steps", [])):
            res = {"index": idx, "name": step.get("name"), "ok": True, "error": None}
            t0 = time.perf_counter()
            try:
                run_step(con, step, res)
                if step.get("expect_error"):
                    res["ok"] = False
                    res["error"] = "expected an error, but the step succeeded"
            except Exception as e:
                res["error"] = "%s: %s" % (type(e).__name__, e)
                res["ok"] = bool(step.get("expect_error"))
            res["elapsed_ms"] = (time.perf_counter() - t0) * 1000.0
            doc["results"].append(res)
            if not res["ok"]:
                failed = True
                if doc["error"] is None:
                    doc["error"] = "step %d (%s) failed: %s" % (idx, step.get("name"), res["error"])
                if stop_on_error:
                    break
        con.close()
        doc["ok"] = not failed
    except Exception as e:
        doc["error"] = "%s: %s" % (type(e).__name__, e)
        traceback.print_exc(file=sys.stderr)
    _emit(doc)
    return 0 if doc["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
