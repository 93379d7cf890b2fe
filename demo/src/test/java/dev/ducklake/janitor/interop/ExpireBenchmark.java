package dev.ducklake.janitor.interop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ducklake.janitor.pg.Sql;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The expire-snapshots benchmark (issue 12). Not part of the normal test run (the class name does not match
 * Surefire's patterns); run it explicitly:
 *
 * <pre>
 * mvn -B test -Dtest=ExpireBenchmark -Dducklake.bench.expire.n=100000 [-Dducklake.bench.expire.duckdb=false]
 * </pre>
 *
 * <p>The catalog: real DuckLake writes table {@code s} (one Parquet file of 1,000 rows) and one created-and-dropped
 * table; then SQL adds N snapshots at once, valid for DuckLake: at every snapshot table s's file is replaced by a
 * new data file row (same Parquet file, with its column stats: a rewrite every commit), every 5th snapshot the
 * replaced file had a delete file, and every 100th snapshot a table is created (with its column, schema version
 * row, registry row and physical inlined table) and dropped 50 snapshots later; schema versions and the id
 * counters follow. DuckLake attaches it and reads s now and at an old snapshot. Identical copies
 * ({@code CREATE DATABASE … TEMPLATE}) are then expired up to the 10th-newest snapshot by DuckLake's own
 * {@code ducklake_expire_snapshots} and by the janitor (JVM {@code -Xmx256m}, or {@code -Dducklake.bench.expire.xmx}), each process under
 * {@code /usr/bin/time -v}; the two end states are compared row for row. Prints wall times, their ratio, peak RSS
 * and the janitor's first/last batch times; writes them to {@code target/expire-benchmark.txt}.
 */
@Tag("benchmark")
class ExpireBenchmark {

    private static final Pattern BATCH = Pattern.compile("expired, batch (\\d+): snapshots (\\d+) .* in ([0-9.]+) (ms|s)");

    @Test
    void ourExpiryAgainstDuckLakes() throws Exception {
        int n = Integer.getInteger("ducklake.bench.expire.n", 100_000);
        int batch = Integer.getInteger("ducklake.bench.expire.batch", 2_000);
        boolean duck = Boolean.parseBoolean(System.getProperty("ducklake.bench.expire.duckdb", "true"));
        String xmx = System.getProperty("ducklake.bench.expire.xmx", "256m");
        RealDuckLake dl = RealDuckLake.require();
        ExpireTwins twins = new ExpireTwins("xbench");
        List<String> dbs = new ArrayList<>(List.of(twins.source));
        StringBuilder report = new StringBuilder();
        try {
            long t0 = System.nanoTime();
            dl.run(RealDuckLake.program().attach(twins.attach(twins.source).inliningRowLimit(0)).sql(
                    "CREATE TABLE lake.s(id INTEGER, v VARCHAR)", "INSERT INTO lake.s SELECT i, 'v' || i FROM range(1000) t(i)",
                    "CREATE TABLE lake.c(a INTEGER)", "DROP TABLE lake.c", "DELETE FROM lake.s WHERE id = 0")).assertOk();
            grow(twins, twins.source, n);
            double build = (System.nanoTime() - t0) / 1e9;
            long newest = n + 5;
            // DuckLake's check reads the whole catalog into the DuckDB process (about 17 GB of RSS at N = 10,000,000):
            // -Dducklake.bench.expire.check=false skips it for large N (the catalog's shape does not depend on N)
            boolean checked = Boolean.parseBoolean(System.getProperty("ducklake.bench.expire.check", "true"));
            if (checked) {
                RealDuckLake.Result check = dl.run(RealDuckLake.program().attach(twins.attach(twins.source))
                        .query("rows", "SELECT count(*) FROM lake.s")
                        .query("old", "SELECT count(*) FROM lake.s AT (VERSION => " + (n / 2 / 5 * 5) + ")")
                        .query("snapshots", "SELECT count(*) FROM lake.snapshots()")).assertOk();
                assertThat(check.scalar("rows")).isEqualTo(1000);
                assertThat(check.scalar("old")).isEqualTo(999);
                assertThat(check.scalar("snapshots")).isEqualTo(newest + 1);
            }
            String cutoff;
            try (Connection c = twins.connect(twins.source); PreparedStatement ps = c.prepareStatement("SELECT to_char(snapshot_time"
                    + " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') FROM " + Sql.qualified(ExpireTwins.SCHEMA, "ducklake_snapshot")
                    + " WHERE snapshot_id = ?")) {
                // one row, not the whole snapshot list (as ExpireTwins.snapshotTimes reads it) in this JVM
                ps.setLong(1, newest - 9);
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    cutoff = rs.getString(1);
                }
            }
            line(report, "catalog: %,d snapshots, %,d data files, %,d delete files, %,d churned tables with inlined tables; built in %.1f s; %s",
                    newest + 1, n + 1, n / 5, n / 100, build, checked ? "DuckLake attaches and reads it" : "DuckLake's check skipped");
            if (Boolean.getBoolean("ducklake.bench.expire.keep")) {
                System.out.println("source database kept: " + twins.source + " (cutoff " + cutoff + ")");
            }
            String ours = twins.copy("ours");
            dbs.add(ours);
            Measured o = measure(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + xmx,
                    "-cp", System.getProperty("java.class.path"), "dev.ducklake.janitor.cli.Main", "expire-snapshots",
                    "--catalog", twins.catalogArg(ours), "--metadata-schema", ExpireTwins.SCHEMA, "--older-than", cutoff,
                    "--min-age", "0s", "--yes", "--output", "json", "--batch-size", Integer.toString(batch)), null);
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "expire-benchmark-janitor.err"), o.err, StandardCharsets.UTF_8);
            assertThat(o.exit).as(o.err).isZero();
            JsonNode r = RealDuckLake.JSON.readTree(o.out);
            List<Double> batchSeconds = new ArrayList<>();
            Matcher m = BATCH.matcher(o.err);
            while (m.find()) {
                double v = Double.parseDouble(m.group(3));
                batchSeconds.add(m.group(4).equals("ms") ? v / 1000 : v);
            }
            line(report, "janitor (-Xmx%s, batch %d): %.2f s wall, peak RSS %,d KiB, %d batches, first batch %.2f s, last full batch %.2f s;"
                            + " expired %d snapshots, %d data files, %d delete files, %d tables, %d inlined tables",
                    xmx, batch, o.wallSeconds, o.maxRssKib, batchSeconds.size(), batchSeconds.isEmpty() ? 0 : batchSeconds.get(0),
                    lastFull(batchSeconds, r), r.get("snapshots_expired").asLong(), r.get("data_files_scheduled").asLong(),
                    r.get("delete_files_scheduled").asLong(), r.get("tables_removed").asLong(), r.get("inlined_tables_dropped").asLong());
            if (batchSeconds.size() > 2) {
                // how batch time moves through the run (flat = the cost per snapshot does not depend on what is left)
                int tenth = Math.max(1, batchSeconds.size() / 10);
                line(report, "janitor batches, first 10%% (after the first batch): median %.3f s, p90 %.3f s; last 10%%: median %.3f s,"
                        + " p90 %.3f s", quantile(batchSeconds.subList(1, Math.min(batchSeconds.size(), 1 + tenth)), 0.5),
                        quantile(batchSeconds.subList(1, Math.min(batchSeconds.size(), 1 + tenth)), 0.9),
                        quantile(batchSeconds.subList(batchSeconds.size() - tenth, batchSeconds.size()), 0.5),
                        quantile(batchSeconds.subList(batchSeconds.size() - tenth, batchSeconds.size()), 0.9));
                List<Double> sorted = new ArrayList<>(batchSeconds.subList(1, batchSeconds.size()));
                java.util.Collections.sort(sorted);
                int n10 = Math.max(1, batchSeconds.size() / 10);
                line(report, "janitor batches after the first: median %.3f s, p90 %.3f s, max %.3f s; mean of the first 10%% %.3f s,"
                        + " of the last 10%% %.3f s; progress lines not matched as batches: %s", sorted.get(sorted.size() / 2),
                        sorted.get(sorted.size() * 9 / 10), sorted.get(sorted.size() - 1),
                        batchSeconds.subList(1, Math.min(batchSeconds.size(), 1 + n10)).stream().mapToDouble(Double::doubleValue).average().orElse(0),
                        batchSeconds.subList(batchSeconds.size() - n10, batchSeconds.size()).stream().mapToDouble(Double::doubleValue).average().orElse(0),
                        o.err.lines().filter(l -> !BATCH.matcher(l).find()).filter(l -> l.contains(" in ")).limit(6).toList());
            }
            if (duck) {
                String theirs = twins.copy("duck");
                dbs.add(theirs);
                ObjectNode prog = RealDuckLake.JSON.createObjectNode();
                ArrayNode steps = prog.putArray("steps");
                ObjectNode attach = steps.addObject().putObject("attach");
                RealDuckLake.Attach a = twins.attach(theirs);
                attach.put("libpq", "host=" + twins.spec(theirs).host() + " port=" + twins.spec(theirs).port() + " dbname=" + theirs
                        + " user=" + twins.spec(theirs).user());
                attach.put("data_path", twins.dataDir + "/");
                attach.put("metadata_schema", ExpireTwins.SCHEMA);
                steps.addObject().put("sql", "CALL ducklake_expire_snapshots('lake', older_than => TIMESTAMPTZ '" + cutoff + "')");
                Path venv = Path.of(System.getenv().getOrDefault("DUCKLAKE_JANITOR_INTEROP_VENV", ".venv-interop"));
                Measured d = measure(List.of(venv.resolve("bin/python").toString(), RealDuckLake.projectDir()
                        .resolve("demo/src/test/python/ducklake_driver.py").toString()), RealDuckLake.JSON.writeValueAsString(prog));
                if (d.exit == -1) {
                    line(report, "DuckLake ducklake_expire_snapshots: did not finish within %.0f s (killed); ratio > %.1f",
                            d.wallSeconds, d.wallSeconds / o.wallSeconds);
                } else {
                    JsonNode doc = RealDuckLake.JSON.readTree(d.out);
                    assertThat(doc.get("ok").asBoolean()).as(d.out + d.err).isTrue();
                    line(report, "DuckLake ducklake_expire_snapshots: %.2f s wall (process, incl. ATTACH), peak RSS %,d KiB",
                            d.wallSeconds, d.maxRssKib);
                    line(report, "ratio DuckLake / janitor wall time: %.2f", d.wallSeconds / o.wallSeconds);
                    assertThat(twins.dump(ours)).as("same end state as DuckLake's own expiry").isEqualTo(twins.dump(theirs));
                    line(report, "end states equal row for row: yes");
                }
            }
            System.out.println(report);
            Files.createDirectories(Path.of("target"));
            Files.writeString(Path.of("target", "expire-benchmark.txt"), report.toString(), StandardCharsets.UTF_8);
        } finally {
            if (!Boolean.getBoolean("ducklake.bench.expire.keep")) {
                twins.dropAll(dbs);
            }
        }
    }

    /** The q-quantile (0..1, nearest rank) of {@code seconds}; 0 when empty. */
    private static double quantile(List<Double> seconds, double q) {
        if (seconds.isEmpty()) {
            return 0;
        }
        List<Double> sorted = new ArrayList<>(seconds);
        java.util.Collections.sort(sorted);
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(q * sorted.size()) - 1 < 0 ? 0 : (int) Math.ceil(q * sorted.size()) - 1));
    }

    private static double lastFull(List<Double> seconds, JsonNode r) {
        // the last batch may be partial; report the last batch that expired a full batch of snapshots
        JsonNode list = r.get("batch_list");
        double last = 0;
        long full = list.size() > 0 ? list.get(0).get("snapshots").asLong() : 0;
        for (int i = 0; i < list.size() && i < seconds.size(); i++) {
            if (list.get(i).get("snapshots").asLong() == full) {
                last = seconds.get(i);
            }
        }
        return last;
    }

    private static void line(StringBuilder sb, String format, Object... args) {
        sb.append(String.format(Locale.ROOT, format, args)).append(System.lineSeparator());
    }

    record Measured(int exit, String out, String err, double wallSeconds, long maxRssKib) {
    }

    private static Measured measure(List<String> command, String stdin) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/time", "-v"));
        cmd.addAll(command);
        Path out = Files.createTempFile("bench-out", ".txt");
        Path err = Files.createTempFile("bench-err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        long t0 = System.nanoTime();
        Process p = pb.start();
        if (stdin != null) {
            p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        p.getOutputStream().close();
        long limit = Long.getLong("ducklake.bench.expire.timeout", 480);
        int exit;
        if (p.waitFor(limit, java.util.concurrent.TimeUnit.SECONDS)) {
            exit = p.exitValue();
        } else {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor();
            exit = -1;
        }
        double wall = (System.nanoTime() - t0) / 1e9;
        String e = Files.readString(err);
        Matcher m = Pattern.compile("Maximum resident set size \\(kbytes\\): (\\d+)").matcher(e);
        long rss = m.find() ? Long.parseLong(m.group(1)) : -1;
        return new Measured(exit, Files.readString(out), e, wall, rss);
    }

    /**
     * Adds snapshots 6 .. n+5 to the catalog DuckLake wrote (snapshots 0..5: schema, create s, insert s, create c,
     * drop c, delete one row of s; table s = id 1 with data file 0 and delete file 1; next_catalog_id 3;
     * schema_version 3).
     */
    static void grow(ExpireTwins twins, String db, int n) throws Exception {
        String s = ExpireTwins.SCHEMA;
        int last = n + 5;
        try (Connection c = twins.connect(db); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            st.execute("SET LOCAL search_path TO " + Sql.ident(s));
            // creates at i = 100 k (k >= 1), drops at 100 k + 50
            try (PreparedStatement ps = c.prepareStatement("CREATE TEMP TABLE snaps ON COMMIT DROP AS SELECT i,"
                    + " (i / 100) AS creates, GREATEST(0, (i - 50) / 100) AS drops FROM generate_series(6, ?) i")) {
                ps.setInt(1, last);
                ps.execute();
            }
            st.execute("INSERT INTO ducklake_snapshot SELECT i, now() - interval '2 hours' - make_interval(secs => (" + last
                    + " - i) * (3000.0 / " + last + ")), 3 + creates + drops, 3 + creates, 2 * i + 2 FROM snaps");
            st.execute("INSERT INTO ducklake_snapshot_changes (snapshot_id, changes_made) SELECT i, concat_ws(',', 'inserted_into_table:1',"
                    + " CASE WHEN i % 100 = 0 THEN 'created_table:\"main\".\"c' || i || '\"' END,"
                    + " CASE WHEN i % 100 = 50 AND i > 100 THEN 'dropped_table:' || (2 + (i - 50) / 100) END) FROM snaps");
            st.execute("UPDATE ducklake_snapshot SET snapshot_time = now() - interval '3 hours' + make_interval(secs => snapshot_id) WHERE snapshot_id < 6");
            // table s: every snapshot replaces its file (same Parquet, same stats); every 5th replaced file had the
            // real delete file's twin (same Parquet delete file: row id 0 deleted)
            st.execute("UPDATE ducklake_data_file SET end_snapshot = 6 WHERE data_file_id = 0");
            st.execute("UPDATE ducklake_delete_file SET end_snapshot = 6 WHERE delete_file_id = 1");
            st.execute("INSERT INTO ducklake_data_file SELECT 2 * i, table_id, i, CASE WHEN i < " + last + " THEN i + 1 END, file_order,"
                    + " path, path_is_relative, file_format, record_count, file_size_bytes, footer_size, row_id_start, partition_id,"
                    + " encryption_key, mapping_id, partial_max FROM ducklake_data_file d CROSS JOIN snaps WHERE d.data_file_id = 0");
            st.execute("INSERT INTO ducklake_file_column_stats SELECT 2 * i, table_id, column_id, column_size_bytes, value_count,"
                    + " null_count, min_value, max_value, contains_nan, extra_stats FROM ducklake_file_column_stats f CROSS JOIN snaps"
                    + " WHERE f.data_file_id = 0");
            st.execute("INSERT INTO ducklake_delete_file SELECT 2 * i + 1, table_id, i, i + 1, 2 * i, path, path_is_relative, format,"
                    + " delete_count, file_size_bytes, footer_size, encryption_key, partial_max FROM ducklake_delete_file d CROSS JOIN snaps"
                    + " WHERE d.delete_file_id = 1 AND i % 5 = 0 AND i < " + last);
            // churn: table 2 + k created at 100 k, dropped at 100 k + 50 (only when that snapshot exists)
            st.execute("CREATE TEMP TABLE churn ON COMMIT DROP AS SELECT i AS created, i / 100 + 2 AS table_id,"
                    + " 3 + (i / 100) + GREATEST(0, (i - 50) / 100) AS sv, CASE WHEN i + 50 <= " + last + " THEN i + 50 END AS dropped"
                    + " FROM snaps WHERE i % 100 = 0");
            st.execute("INSERT INTO ducklake_table SELECT table_id, gen_random_uuid(), created, dropped, 0, 'c' || created,"
                    + " 'c' || created || '/', true FROM churn");
            st.execute("INSERT INTO ducklake_column (column_id, begin_snapshot, end_snapshot, table_id, column_order, column_name,"
                    + " column_type, nulls_allowed, default_value_type, default_value_dialect) SELECT 1, created, dropped, table_id, 1, 'a',"
                    + " 'int32', true, 'literal', 'duckdb' FROM churn");
            st.execute("INSERT INTO ducklake_schema_versions SELECT created, sv, table_id FROM churn");
            st.execute("INSERT INTO ducklake_inlined_data_tables SELECT table_id, 'ducklake_inlined_data_' || table_id || '_' || sv, sv FROM churn");
            c.commit();
            // the physical inlined tables, 5,000 per transaction: each CREATE TABLE holds a lock until commit, and the
            // lock table (max_locks_per_transaction × connections) does not hold the 100,000 tables of N = 10,000,000
            int lastTable = last / 100 + 2;
            for (int lo = 2; lo < lastTable; lo += 5_000) {
                st.execute("SET LOCAL search_path TO " + Sql.ident(s));
                st.execute("DO $$ DECLARE r record; BEGIN FOR r IN SELECT table_name FROM ducklake_inlined_data_tables WHERE table_id > "
                        + lo + " AND table_id <= " + (lo + 5_000) + " LOOP"
                        + " EXECUTE format('CREATE TABLE %I (row_id bigint, begin_snapshot bigint, end_snapshot bigint, a integer)', r.table_name);"
                        + " END LOOP; END $$");
                c.commit();
            }
            // the catalog tables (a catalog's autovacuum would have analyzed them), in autocommit: an ANALYZE left in
            // the open transaction was rolled back when the connection closed, and one over the whole database in one
            // transaction locks every inlined table (out of shared memory at 100,000 tables)
            c.setAutoCommit(true);
            String tables;
            try (PreparedStatement ps = c.prepareStatement("SELECT string_agg(quote_ident(relname), ', ') FROM pg_class WHERE relkind = 'r'"
                    + " AND relnamespace = ?::regnamespace AND relname NOT LIKE 'ducklake\\_inlined\\_%'")) {
                ps.setString(1, s);
                try (java.sql.ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    tables = rs.getString(1);
                }
            }
            st.execute("SET search_path TO " + Sql.ident(s));
            st.execute("ANALYZE " + tables);
        }
    }
}
