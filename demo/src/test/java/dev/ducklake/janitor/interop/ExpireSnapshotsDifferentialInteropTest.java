package dev.ducklake.janitor.interop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.cli.Main;
import dev.ducklake.janitor.testsupport.JanitorProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The differential proof of expire-snapshots (issue 12): a catalog written by the real DuckLake 1.5.5 with a varied
 * workload is copied with {@code CREATE DATABASE … TEMPLATE}; one twin is expired by DuckLake's own
 * {@code ducklake_expire_snapshots}, the other by the janitor with the same criterion, and every relation of the
 * metadata schema must then be equal row for row (the deletion queue without schedule_start), and the set of
 * relations too. Then DuckLake reads both twins identically at every retained snapshot, and keeps working on
 * the janitor's twin.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExpireSnapshotsDifferentialInteropTest {

    /** The workload: Parquet and inlined inserts, file and inlined deletes, updates, drops, renames, column add/drop,
     * CREATE OR REPLACE churn, views replaced, a schema dropped, partitions, merge, flush, tags/comments, macros. */
    static final String[] WORKLOAD = {
        "CREATE TABLE lake.big(id INTEGER, v VARCHAR)",
        "INSERT INTO lake.big SELECT i, 'v' || i FROM range(1000) t(i)",
        "INSERT INTO lake.big SELECT i, 'w' || i FROM range(1000, 1500) t(i)",
        "INSERT INTO lake.big VALUES (2000, 'inl1'), (2001, 'inl2')",
        "DELETE FROM lake.big WHERE id < 300",
        "DELETE FROM lake.big WHERE id = 1200",
        "UPDATE lake.big SET v = 'upd' WHERE id BETWEEN 500 AND 520",
        "UPDATE lake.big SET v = 'upd2' WHERE id = 2000",
        "CREATE TABLE lake.gone(a INTEGER, b VARCHAR)",
        "INSERT INTO lake.gone VALUES (1, 'x'), (2, 'y')",
        "INSERT INTO lake.gone SELECT i, 'p' FROM range(100) t(i)",
        "ALTER TABLE lake.gone ADD COLUMN c DOUBLE",
        "ALTER TABLE lake.gone RENAME TO gone2",
        "ALTER TABLE lake.gone2 DROP COLUMN b",
        "INSERT INTO lake.gone2 VALUES (5, 0.5)",
        "COMMENT ON TABLE lake.big IS 'the big one'",
        "COMMENT ON COLUMN lake.big.v IS 'value col'",
        "CREATE VIEW lake.v1 AS SELECT id FROM lake.big",
        "CREATE OR REPLACE VIEW lake.v1 AS SELECT id, v FROM lake.big",
        "CREATE TABLE lake.part(k INTEGER, d VARCHAR)",
        "ALTER TABLE lake.part SET PARTITIONED BY (k)",
        "INSERT INTO lake.part SELECT i % 3, 'd' || i FROM range(60) t(i)",
        "INSERT INTO lake.part SELECT i % 3, 'e' || i FROM range(60) t(i)",
        "CALL ducklake_merge_adjacent_files('lake')",
        "CREATE SCHEMA lake.s2",
        "CREATE TABLE lake.s2.t(x INTEGER)",
        "INSERT INTO lake.s2.t VALUES (1), (2)",
        "INSERT INTO lake.s2.t SELECT i FROM range(50) t(i)",
        "DROP SCHEMA lake.s2 CASCADE",
        "CREATE OR REPLACE TABLE lake.churn AS SELECT 1 AS a",
        "CREATE OR REPLACE TABLE lake.churn AS SELECT 2 AS a, 'b' AS b",
        "CREATE OR REPLACE TABLE lake.churn AS SELECT i AS a FROM range(40) t(i)",
        "CALL ducklake_flush_inlined_data('lake')",
        "DROP TABLE lake.gone2",
        "CREATE MACRO lake.m1(x) AS x + 1",
        "CREATE OR REPLACE MACRO lake.m1(x) AS x + 2",
        "INSERT INTO lake.big VALUES (3000, 'late')",
        "DELETE FROM lake.part WHERE k = 1",
        "DROP VIEW lake.v1",
        "INSERT INTO lake.churn VALUES (99)",
        "INSERT INTO lake.big VALUES (3001, 'late2')",
        "DELETE FROM lake.big WHERE id = 3000",
    };

    private ExpireTwins twins;
    private Map<Long, String> times;
    private final List<String> dbs = new ArrayList<>();

    @BeforeAll
    void writeCatalog() throws Exception {
        RealDuckLake.require();
        twins = new ExpireTwins("dx");
        dbs.add(twins.source);
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(twins.source).inliningRowLimit(10))
                .sql(WORKLOAD)).assertOk();
        times = twins.snapshotTimes(twins.source);
        assertThat(times).as("one snapshot per statement plus the creation").hasSizeGreaterThan(35);
    }

    @AfterAll
    void dropDatabases() {
        if (twins != null) {
            twins.dropAll(dbs);
        }
    }

    private String copy(String suffix) throws Exception {
        String db = twins.copy(suffix);
        dbs.add(db);
        return db;
    }

    /**
     * DuckLake 1.5.5's expiry, then the one deliberate difference (README, "Deliberate differences from DuckLake 1.5.5"): the
     * dead inlined rows that DuckLake's later expiry (#1391) and the janitor's delete are deleted from its twin too, so the
     * twins must then be equal row for row.
     *
     * @return the dead inlined rows deleted after DuckLake's expiry (the janitor's inlined_rows_deleted must equal it)
     */
    private long duckLakeExpire(String db, String arguments) throws Exception {
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(db))
                .named("expire", "CALL ducklake_expire_snapshots('lake', " + arguments + ")")).assertOk();
        return twins.reclaimDeadInlinedRows(db);
    }

    static JsonNode janitor(String catalog, String... args) {
        List<String> all = new ArrayList<>(List.of("expire-snapshots", "--catalog", catalog, "--metadata-schema", ExpireTwins.SCHEMA,
                "--output", "json", "--yes", "--min-age", "0s"));
        all.addAll(List.of(args));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(all.toArray(new String[0]), new PrintWriter(out), new PrintWriter(err));
        assertThat(code).as("exit code; stderr: %s; stdout: %s", err, out).isZero();
        try {
            return RealDuckLake.JSON.readTree(out.toString());
        } catch (IOException e) {
            throw new AssertionError(out + "\n" + err, e);
        }
    }

    private String timeOf(long snapshot) {
        return times.get(snapshot);
    }

    private long newest() {
        return times.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
    }

    @ParameterizedTest(name = "older_than at snapshot {0}, batch size {1}")
    // 3 and 7: several batches of several snapshots each, where the narrowed re-check (ExpireBatch.narrowToBatch) must
    // find what the full pass finds
    @CsvSource({"20,1", "20,1000", "33,1", "33,3", "newest,1", "newest,7", "newest,1000", "33,1000000", "newest,1000000"})
    void olderThanEqualsDuckLake(String at, int batchSize) throws Exception {
        long k = at.equals("newest") ? newest() : Long.parseLong(at);
        String t = timeOf(k);
        String a = copy("a");
        String b = copy("b");
        long dead = duckLakeExpire(a, "older_than => TIMESTAMPTZ '" + t + "'");
        JsonNode r = janitor(twins.catalogArg(b), "--older-than", t, "--batch-size", Integer.toString(batchSize));
        assertThat(r.get("snapshots_expired").asLong()).isEqualTo(k);
        assertThat(r.get("inlined_rows_deleted").asLong()).as("exactly the dead inlined rows").isEqualTo(dead);
        if (at.equals("newest")) {
            assertThat(dead).as("the workload's inlined deletes and updates leave dead rows").isPositive();
        }
        assertThat(r.get("oldest_retained_snapshot").asLong()).isEqualTo(k);
        // the same instant; the result prints it in ISO-8601's shortest form (…59.592Z for a snapshot at …59.592000)
        assertThat(java.time.Instant.parse(r.get("cutoff").asText())).isEqualTo(java.time.Instant.parse(t));
        if (at.equals("newest")) {
            assertThat(r.get("tables_removed").asLong()).as("dropped, replaced and schema-dropped tables go").isGreaterThanOrEqualTo(4);
            assertThat(r.get("inlined_tables_dropped").asLong()).isPositive();
            assertThat(r.get("data_files_scheduled").asLong()).isPositive();
        }
        if (batchSize == 1) {
            assertThat(r.get("batches").asLong()).isGreaterThanOrEqualTo(k);
        }
        if (batchSize > 2000) {
            // expire-snapshots' own --batch-size range (up to 1,000,000 snapshots): one batch holds every snapshot
            assertThat(r.get("batches").asLong()).isEqualTo(1);
        }
        assertThat(twins.dump(b)).isEqualTo(twins.dump(a));
    }

    @Test
    void versionsEqualDuckLake() throws Exception {
        List<Long> versions = List.of(1L, 4L, 9L, 15L, 22L, 30L, 34L);
        String a = copy("va");
        String b = copy("vb");
        long dead = duckLakeExpire(a, "versions => " + versions);
        JsonNode r = janitor(twins.catalogArg(b), "--versions", versions.stream().map(String::valueOf).collect(Collectors.joining(",")));
        assertThat(r.get("snapshots_expired").asLong()).isEqualTo(versions.size());
        assertThat(r.get("inlined_rows_deleted").asLong()).isEqualTo(dead);
        assertThat(r.get("criterion").asText()).isEqualTo("versions");
        assertThat(twins.dump(b)).isEqualTo(twins.dump(a));
    }

    @Test
    void expiringTheMiddleOfADroppedTablesLifeRemovesItLikeDuckLake() throws Exception {
        // the 'gone' table (renamed to gone2, then dropped): expire exactly the snapshots of its life, keep before and after
        List<String> life = twins.rows(twins.source, "SELECT min(begin_snapshot), max(end_snapshot) FROM "
                + ExpireTwins.SCHEMA + ".ducklake_table WHERE table_name IN ('gone', 'gone2')");
        String[] bounds = life.get(0).split("\\|");
        long begin = Long.parseLong(bounds[0]);
        long end = Long.parseLong(bounds[1]);
        assertThat(begin).isPositive();
        assertThat(end).isLessThan(newest());
        List<Long> versions = new ArrayList<>();
        for (long s = begin; s < end; s++) {
            versions.add(s);
        }
        String a = copy("ma");
        String b = copy("mb");
        duckLakeExpire(a, "versions => " + versions);
        JsonNode r = janitor(twins.catalogArg(b), "--batch-size", "3",
                "--versions", versions.stream().map(String::valueOf).collect(Collectors.joining(",")));
        assertThat(r.get("tables_removed").asLong()).as("gone/gone2 is removable although older and newer snapshots remain")
                .isGreaterThanOrEqualTo(1);
        assertThat(twins.rows(b, "SELECT count(*) FROM " + ExpireTwins.SCHEMA + ".ducklake_table WHERE table_name IN ('gone', 'gone2')"))
                .containsExactly("0");
        assertThat(twins.dump(b)).isEqualTo(twins.dump(a));
    }

    /**
     * Issue 22 part 2: the shared reachability predicate agrees with DuckLake's own rule after a middle expiry. Twin a: real
     * DuckLake expires the snapshots of gone's life (older and newer snapshots remain); twin b: the same ids deleted by hand (a
     * hand-written expiry, which removes no table). The registry rows {@code OrphanPredicate} calls unreachable on b are
     * exactly those whose tables DuckLake removed on a, none on a; both ends of the gap are exact (gone2's last row ends at
     * the first retained snapshot after the gap: not visible there).
     */
    @Test
    void theOrphanPredicateCallsUnreachableExactlyWhatDuckLakesMiddleExpiryRemoves() throws Exception {
        List<String> life = twins.rows(twins.source, "SELECT min(begin_snapshot), max(end_snapshot) FROM "
                + ExpireTwins.SCHEMA + ".ducklake_table WHERE table_name IN ('gone', 'gone2')");
        String[] bounds = life.get(0).split("\\|");
        long begin = Long.parseLong(bounds[0]);
        long end = Long.parseLong(bounds[1]);
        List<Long> versions = new ArrayList<>();
        for (long s = begin; s < end; s++) {
            versions.add(s);
        }
        String a = copy("pa");
        String b = copy("pb");
        duckLakeExpire(a, "versions => " + versions);
        try (var c = twins.connect(b); var st = c.createStatement()) {
            for (String t : List.of("ducklake_snapshot", "ducklake_snapshot_changes")) {
                st.executeUpdate("DELETE FROM " + ExpireTwins.SCHEMA + "." + t + " WHERE snapshot_id >= " + begin + " AND snapshot_id < " + end);
            }
        }
        String registryIds = "SELECT DISTINCT table_id FROM " + ExpireTwins.SCHEMA + ".ducklake_inlined_data_tables ORDER BY 1";
        List<String> removedByDuckLake = new ArrayList<>(twins.rows(twins.source, registryIds));
        removedByDuckLake.removeAll(twins.rows(a, registryIds));
        assertThat(removedByDuckLake).as("DuckLake removed gone/gone2 (and what else lived only in the gap)").isNotEmpty();
        String unreachable = "SELECT DISTINCT r.table_id FROM " + ExpireTwins.SCHEMA + ".ducklake_inlined_data_tables r WHERE "
                + dev.ducklake.janitor.catalog.OrphanPredicate.unreachable(ExpireTwins.SCHEMA, "r.table_id") + " ORDER BY 1";
        assertThat(twins.rows(b, unreachable)).as("unreachable after the hand-written expiry = removed by DuckLake's")
                .containsExactlyElementsOf(removedByDuckLake);
        assertThat(twins.rows(a, unreachable)).as("nothing unreachable is left by DuckLake's own expiry").isEmpty();
        assertThat(twins.rows(b, "SELECT min(snapshot_id) < " + begin + " AND max(snapshot_id) >= " + end + " FROM "
                + ExpireTwins.SCHEMA + ".ducklake_snapshot")).as("snapshots remain on both sides of the gap").containsExactly("t");
    }

    @Test
    void sigkillMidRunThenRerunReachesDuckLakesEndState() throws Exception {
        String t = timeOf(newest());
        String a = copy("ka");
        String b = copy("kb");
        duckLakeExpire(a, "older_than => TIMESTAMPTZ '" + t + "'");
        JanitorProcess p = JanitorProcess.start(Map.of(), "expire-snapshots", "--catalog", twins.catalogArg(b), "--metadata-schema",
                ExpireTwins.SCHEMA, "--yes", "--min-age", "0s", "--older-than", t, "--batch-size", "1");
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!p.err().contains("batch 5:") && p.process().isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        boolean killedMidRun = p.process().isAlive();
        p.kill();
        System.err.println("expire SIGKILL landed " + (killedMidRun ? "mid-run" : "after the run") + "; stderr before the kill:\n" + p.err());
        p.cleanup();
        long left = Long.parseLong(twins.rows(b, "SELECT count(*) FROM " + ExpireTwins.SCHEMA + ".ducklake_snapshot").get(0));
        assertThat(left).as("some batches committed, not all").isGreaterThan(1);
        JsonNode r = janitor(twins.catalogArg(b), "--older-than", t);
        assertThat(r.get("snapshots_expired").asLong()).isEqualTo(left - 1);
        assertThat(twins.dump(b)).isEqualTo(twins.dump(a));
        // idempotent: a further run finds nothing and changes nothing
        Map<String, List<String>> after = twins.dump(b);
        JsonNode again = janitor(twins.catalogArg(b), "--older-than", t);
        assertThat(again.get("snapshots_expired").asLong()).isZero();
        assertThat(twins.dump(b)).isEqualTo(after);
    }

    /**
     * Issue 27: an execute run has phases (the run's candidate list, the snapshot batches, the closing anti-join over the
     * per-file rows of removed data files, the dead-inlined-row sweep). A run stopped by its budget right after its first
     * batch skips the closing phases: with every snapshot in that batch, the catalog is left with column stats of data
     * files that are gone; DuckLake must read it exactly as its own expired twin, and the next run (other batch size) must
     * reach DuckLake's end state. A second copy is stopped after the first of many batches and resumed the same way.
     */
    @ParameterizedTest(name = "stopped after the first batch of size {0}, resumed with batch size {1}")
    @CsvSource({"1000000,1", "3,7"})
    void stopBetweenPhasesThenResumeReachesDuckLakesEndState(int firstBatchSize, int resumeBatchSize) throws Exception {
        String t = timeOf(newest());
        String a = copy("pa" + firstBatchSize);
        String b = copy("pb" + firstBatchSize);
        long reclaimed = duckLakeExpire(a, "older_than => TIMESTAMPTZ '" + t + "'");
        JsonNode stopped = janitor(twins.catalogArg(b), "--older-than", t, "--batch-size", Integer.toString(firstBatchSize),
                "--run-budget", "1ms");
        assertThat(stopped.get("batches").asLong()).as("the budget ends the run after its first batch").isEqualTo(1);
        String s = ExpireTwins.SCHEMA;
        String dangling = "SELECT count(*) FROM " + s + ".ducklake_file_column_stats x WHERE NOT EXISTS (SELECT 1 FROM " + s
                + ".ducklake_data_file f WHERE f.data_file_id = x.data_file_id)";
        if (firstBatchSize > 1000) {
            assertThat(Long.parseLong(twins.rows(b, "SELECT count(*) FROM " + s + ".ducklake_snapshot").get(0)))
                    .as("every selected snapshot went in the one batch").isEqualTo(Long.parseLong(
                            twins.rows(a, "SELECT count(*) FROM " + s + ".ducklake_snapshot").get(0)));
            assertThat(Long.parseLong(twins.rows(b, dangling).get(0)))
                    .as("stopped between the batches and the closing pass: stats of removed data files are still there").isPositive();
            List<String> visible = twins.rows(a, "SELECT s.snapshot_id, sc.schema_name, t.table_name FROM " + s
                    + ".ducklake_snapshot s JOIN " + s + ".ducklake_table t ON s.snapshot_id >= t.begin_snapshot"
                    + " AND (t.end_snapshot IS NULL OR s.snapshot_id < t.end_snapshot) JOIN " + s
                    + ".ducklake_schema sc ON sc.schema_id = t.schema_id AND s.snapshot_id >= sc.begin_snapshot"
                    + " AND (sc.end_snapshot IS NULL OR s.snapshot_id < sc.end_snapshot) ORDER BY 1, 2, 3");
            RealDuckLake.Result ra = RealDuckLake.require().run(reads(a, visible)).assertOk();
            RealDuckLake.Result rb = RealDuckLake.require().run(reads(b, visible)).assertOk();
            assertThat(rb.namedRows()).as("DuckLake reads the stopped twin as its own").isEqualTo(ra.namedRows());
        }
        JsonNode resumed = janitor(twins.catalogArg(b), "--older-than", t, "--batch-size", Integer.toString(resumeBatchSize));
        assertThat(resumed.get("inlined_rows_deleted").asLong()).isEqualTo(reclaimed);
        assertThat(Long.parseLong(twins.rows(b, dangling).get(0))).isZero();
        assertThat(twins.dump(b)).isEqualTo(twins.dump(a));
    }

    /** A dry run's figure (what an execute run would do) and the execute run's key for it (what it did). */
    private static final Map<String, String> DRY_TO_EXECUTE = orderedPairs("snapshots_would_expire", "snapshots_expired",
            "data_files_would_schedule", "data_files_scheduled", "delete_files_would_schedule", "delete_files_scheduled",
            "tables_would_remove", "tables_removed", "inlined_tables_would_drop", "inlined_tables_dropped",
            "other_rows_would_delete", "other_rows_deleted", "inlined_rows_would_delete", "inlined_rows_deleted",
            "oldest_retained_snapshot", "oldest_retained_snapshot", "batches", "batches");

    private static Map<String, String> orderedPairs(String... kv) {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void dryRunChangesNothingAndPredictsTheExecuteRun() throws Exception {
        String t = timeOf(newest());
        String b = copy("db");
        Map<String, List<String>> before = twins.dump(b);
        JsonNode dry = janitor(twins.catalogArg(b), "--older-than", t, "--batch-size", "7", "--dry-run");
        assertThat(twins.dump(b)).isEqualTo(before);
        JsonNode exec = janitor(twins.catalogArg(b), "--older-than", t, "--batch-size", "7");
        for (Map.Entry<String, String> f : DRY_TO_EXECUTE.entrySet()) {
            assertThat(dry.get(f.getKey()).asLong()).as(f.getKey()).isEqualTo(exec.get(f.getValue()).asLong());
        }
        assertThat(dry.get("batch_list")).hasSize(exec.get("batch_list").size());
    }

    /** Issue 22 part 4: the dry run's figures equal the execute run's, on the workload's middle expiry and after a hand-written one. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"versions", "hand-written expiry, nothing selected", "hand-written expiry, then older_than"})
    void dryRunPredictsEveryFigureOfTheExecuteRun(String scenario) throws Exception {
        String b = copy("dt");
        List<String> life = twins.rows(b, "SELECT min(begin_snapshot), max(end_snapshot) FROM " + ExpireTwins.SCHEMA
                + ".ducklake_table WHERE table_name IN ('gone', 'gone2')");
        String[] bounds = life.get(0).split("\\|");
        List<String> args = new ArrayList<>();
        if (scenario.equals("versions")) {
            args.addAll(List.of("--versions", "1,4,9,15,22,30,34", "--batch-size", "2"));
        } else {
            // what an operator's DELETE FROM ducklake_snapshot does: the snapshots of gone's life go, nothing else
            try (var c = twins.connect(b); var st = c.createStatement()) {
                for (String t : List.of("ducklake_snapshot", "ducklake_snapshot_changes")) {
                    st.executeUpdate("DELETE FROM " + ExpireTwins.SCHEMA + "." + t + " WHERE snapshot_id >= " + bounds[0]
                            + " AND snapshot_id < " + bounds[1]);
                }
            }
            args.addAll(scenario.endsWith("nothing selected") ? List.of("--retain-last", "1000")
                    : List.of("--older-than", timeOf(30), "--batch-size", "3"));
        }
        JsonNode dry = janitor(twins.catalogArg(b), concat(args, "--dry-run"));
        JsonNode exec = janitor(twins.catalogArg(b), args.toArray(new String[0]));
        for (Map.Entry<String, String> f : DRY_TO_EXECUTE.entrySet()) {
            assertThat(dry.get(f.getKey()).asLong()).as(scenario + ": " + f.getKey()).isEqualTo(exec.get(f.getValue()).asLong());
        }
        assertThat(dry.get("batch_list")).hasSize(exec.get("batch_list").size());
        assertThat(dry.get("removed_tables")).as("named, one per removed table").hasSize(exec.get("tables_removed").asInt());
        long inRanges = 0;
        for (JsonNode g : dry.get("expired_ranges")) {
            inRanges += g.get("snapshots").asLong();
        }
        assertThat(inRanges).isEqualTo(exec.get("snapshots_expired").asLong());
        if (!scenario.equals("versions")) {
            assertThat(exec.get("tables_removed").asLong()).as("gone/gone2 goes after the hand-written expiry").isPositive();
            List<String> names = new ArrayList<>();
            dry.get("removed_tables").forEach(x -> names.add(x.get("table_name").asText()));
            assertThat(names).contains("gone2");
        }
    }

    private static String[] concat(List<String> args, String more) {
        List<String> all = new ArrayList<>(args);
        all.add(more);
        return all.toArray(new String[0]);
    }

    @Test
    void duckLakeReadsTheJanitorsTwinExactlyAsItsOwnAndKeepsWorking() throws Exception {
        long k = 30;
        String t = timeOf(k);
        String a = copy("ra");
        String b = copy("rb");
        duckLakeExpire(a, "older_than => TIMESTAMPTZ '" + t + "'");
        janitor(twins.catalogArg(b), "--older-than", t, "--batch-size", "4");
        assertThat(twins.dump(b)).isEqualTo(twins.dump(a));
        List<String> visible = twins.rows(a, "SELECT s.snapshot_id, sc.schema_name, t.table_name FROM " + ExpireTwins.SCHEMA
                + ".ducklake_snapshot s JOIN " + ExpireTwins.SCHEMA + ".ducklake_table t ON s.snapshot_id >= t.begin_snapshot"
                + " AND (t.end_snapshot IS NULL OR s.snapshot_id < t.end_snapshot) JOIN " + ExpireTwins.SCHEMA
                + ".ducklake_schema sc ON sc.schema_id = t.schema_id AND s.snapshot_id >= sc.begin_snapshot"
                + " AND (sc.end_snapshot IS NULL OR s.snapshot_id < sc.end_snapshot) ORDER BY 1, 2, 3");
        assertThat(visible).hasSizeGreaterThan(10);
        RealDuckLake.Result ra = RealDuckLake.require().run(reads(a, visible)).assertOk();
        RealDuckLake.Result rb = RealDuckLake.require().run(reads(b, visible)).assertOk();
        assertThat(rb.namedRows()).isEqualTo(ra.namedRows()).hasSize(visible.size() + 1);
        // expired snapshots are gone for DuckLake too
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(b))
                .expectError("expired", "SELECT * FROM lake.big AT (VERSION => " + (k - 1) + ")")).assertOk();
        // DuckLake keeps writing and maintaining the janitor's twin
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(b))
                .sql("INSERT INTO lake.big VALUES (5000, 'after')", "INSERT INTO lake.big SELECT i, 'x' FROM range(6000, 6100) t(i)",
                        "DELETE FROM lake.big WHERE id = 6001", "ALTER TABLE lake.churn ADD COLUMN z INTEGER",
                        "CREATE TABLE lake.fresh AS SELECT 1 AS f", "DROP TABLE lake.part",
                        "CALL ducklake_flush_inlined_data('lake')", "CALL ducklake_merge_adjacent_files('lake')",
                        "CALL ducklake_expire_snapshots('lake', older_than => now())",
                        "CALL ducklake_cleanup_old_files('lake', cleanup_all => true)", "CHECKPOINT lake")
                .query("count", "SELECT count(*) FROM lake.big")).assertOk();
    }

    private RealDuckLake.Program reads(String db, List<String> visible) {
        RealDuckLake.Program p = RealDuckLake.program().attach(twins.attach(db));
        for (String v : visible) {
            String[] f = v.split("\\|");
            p.query("at_" + f[0] + "_" + f[1] + "_" + f[2], "SELECT * FROM lake.\"" + f[1] + "\".\"" + f[2] + "\" AT (VERSION => " + f[0]
                    + ") ORDER BY ALL");
        }
        p.query("now", "SELECT * FROM lake.big ORDER BY ALL");
        return p;
    }
}
