#!/usr/bin/env python3
"""Per-phase profile of drop-orphan-inline-tables batches from a PostgreSQL csvlog.

Run the benchmark with every statement logged, then read the log:

    java -jar target/ducklake-janitor.jar bench --n 20000 --batch-sizes 500 --variants "a,c'" \
        --log-statements bench-out/pglog --out bench-out
    python3 scripts/bench-phase-profile.py bench-out/pglog

For each session that ran batches (the janitor's execute run: it locks registry rows FOR UPDATE SKIP LOCKED;
the floor c': one multi-table DROP per transaction) it sums the server-side durations PostgreSQL logged
(log_min_duration_statement = 0: parse + bind + execute of each statement; one statement counted per execute) by batch phase, and prints the
milliseconds per batch of each phase. Server time only: the network round trips and the client's own work are
the difference to the batch times in batches.csv.
"""
import csv
csv.field_size_limit(1 << 30)
import glob
import os
import re
import sys
from collections import OrderedDict, defaultdict

DURATION = re.compile(r"^duration: ([0-9.]+) ms\s+(statement|parse|bind|execute)[^:]*:\s*(.*)$", re.S)

# (phase, test on the statement text), first match wins; order follows the batch protocol
PHASES = [
    ("SET LOCAL timeouts", lambda s: "set_config" in s and "statement_timeout" in s),
    ("registry rows locked + predicate re-check", lambda s: "FOR UPDATE OF r SKIP LOCKED" in s),
    ("SAVEPOINT / RELEASE", lambda s: s.startswith("SAVEPOINT") or s.startswith("RELEASE")),
    ("LOCK TABLE", lambda s: s.startswith("LOCK TABLE")),
    ("size check (zero-block heaps)", lambda s: "zero_block_heap" in s),
    ("emptiness probe (SELECT ... LIMIT 1)", lambda s: s.startswith("(SELECT tableoid FROM")),
    ("DROP TABLE", lambda s: s.startswith("DROP TABLE")),
    ("registry DELETE", lambda s: s.startswith("DELETE FROM") and "ctid = ANY" in s),
    ("COMMIT", lambda s: s.strip().upper() == "COMMIT"),
    ("BEGIN", lambda s: s.strip().upper() == "BEGIN"),
]


def phase_of(sql):
    s = sql.strip()
    for name, test in PHASES:
        if test(s):
            return name
    return "other (surveys, recounts, ...)"


def read(paths):
    sessions = OrderedDict()
    for path in paths:
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            for row in csv.reader(f):
                if len(row) < 14:
                    continue
                m = DURATION.match(row[13])
                if not m:
                    continue
                sid = row[5]
                s = sessions.setdefault(sid, {"db": row[2], "ms": defaultdict(float), "n": defaultdict(int), "first": row[0]})
                ph = phase_of(m.group(3))
                s["ms"][ph] += float(m.group(1))
                if m.group(2) in ("statement", "execute"):
                    s["n"][ph] += 1
    return sessions


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    paths = sorted(glob.glob(os.path.join(argv[1], "**", "*.csv"), recursive=True))
    if not paths:
        sys.stderr.write("no *.csv logs under %s\n" % argv[1])
        return 2
    for sid, s in read(paths).items():
        janitor_batches = s["n"].get("registry rows locked + predicate re-check", 0)
        drops = s["n"].get("DROP TABLE", 0)
        commits = s["n"].get("COMMIT", 0)
        if janitor_batches:
            kind, batches = "janitor (a)", janitor_batches
        elif drops and commits:
            kind, batches = "floor (c or c')", commits
        else:
            continue
        total = sum(s["ms"].values())
        print("session %s (%s, started %s): %d batches, server time %.0f ms" % (sid, kind, s["first"], batches, total))
        print("| phase | statements | total ms | ms per batch | share |")
        print("|---|---:|---:|---:|---:|")
        order = [p for p, _ in PHASES] + ["other (surveys, recounts, ...)"]
        for ph in order:
            if ph in s["ms"]:
                print("| %s | %d | %.1f | %.2f | %.0f %% |" % (ph, s["n"][ph], s["ms"][ph], s["ms"][ph] / batches,
                                                              100.0 * s["ms"][ph] / total if total else 0))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
