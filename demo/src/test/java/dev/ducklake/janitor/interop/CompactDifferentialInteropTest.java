package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.testsupport.CliRun;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.cli.Main;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26: flush-inlined-data and compact against real DuckLake 1.5.5. A catalog with small files, partitions, two schema
 * versions, a file with 99% of its rows deleted and inlined rows is written by DuckLake; the janitor's dry-run plan must
 * name exactly what DuckLake's functions do; then on two {@code CREATE DATABASE … TEMPLATE} copies DuckLake's own
 * whole-catalog call and the janitor's command must leave every table with the same rows at every snapshot of the source
 * and at the newest, and the same live files per table (count and rows).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CompactDifferentialInteropTest {

    static final String[] WORKLOAD = {
        "CREATE TABLE lake.small(id INTEGER, v VARCHAR)",
        "INSERT INTO lake.small SELECT i, 'a' || i FROM range(0, 100) t(i)",
        "INSERT INTO lake.small SELECT i, 'b' || i FROM range(100, 200) t(i)",
        "INSERT INTO lake.small SELECT i, 'c' || i FROM range(200, 300) t(i)",
        "INSERT INTO lake.small SELECT i, 'd' || i FROM range(300, 400) t(i)",
        "INSERT INTO lake.small SELECT i, 'e' || i FROM range(400, 500) t(i)",
        "INSERT INTO lake.small SELECT i, 'f' || i FROM range(500, 600) t(i)",
        "CREATE TABLE lake.part(k INTEGER, d VARCHAR)",
        "ALTER TABLE lake.part SET PARTITIONED BY (k)",
        "INSERT INTO lake.part SELECT i % 2, 'p' || i FROM range(40) t(i)",
        "INSERT INTO lake.part SELECT i % 2, 'q' || i FROM range(40) t(i)",
        "INSERT INTO lake.part SELECT i % 2, 'r' || i FROM range(40) t(i)",
        "CREATE TABLE lake.del(id INTEGER)",
        "INSERT INTO lake.del SELECT i FROM range(1000) t(i)",
        "DELETE FROM lake.del WHERE id >= 10",
        "INSERT INTO lake.del SELECT i FROM range(2000, 2100) t(i)",
        "CREATE TABLE lake.evolve(a INTEGER)",
        "INSERT INTO lake.evolve SELECT i FROM range(50) t(i)",
        "INSERT INTO lake.evolve SELECT i FROM range(50, 100) t(i)",
        "ALTER TABLE lake.evolve ADD COLUMN b VARCHAR",
        "INSERT INTO lake.evolve SELECT i, 'x' FROM range(100, 150) t(i)",
        "INSERT INTO lake.evolve SELECT i, 'y' FROM range(150, 200) t(i)",
        "CREATE TABLE lake.inl(id INTEGER, v VARCHAR)",
        "INSERT INTO lake.inl VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        "INSERT INTO lake.inl VALUES (4, 'd')",
        "DELETE FROM lake.inl WHERE id = 2",
        "UPDATE lake.inl SET v = 'z' WHERE id = 3",
        "INSERT INTO lake.small VALUES (1000, 'inlined')",
        "DELETE FROM lake.small WHERE id = 5",
    };
    static final List<String> TABLES = List.of("small", "part", "del", "evolve", "inl");

    private ExpireTwins twins;
    private long newestSource;

    @BeforeAll
    void writeCatalog() throws Exception {
        RealDuckLake.require();
        twins = new ExpireTwins("cx");
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(twins.source).inliningRowLimit(10)).sql(WORKLOAD)).assertOk();
        newestSource = twins.newestSnapshot(twins.source);
    }

    @AfterAll
    void dropDatabases() {
        if (twins != null) {
            twins.close();
        }
    }



    CliRun janitor(String command, String db, String... args) {
        List<String> all = new ArrayList<>(List.of("--duckdb-extension-dir", RealDuckLake.require().extensionFilesRoot().toString()));
        all.addAll(List.of(args));
        return janitorWithout(command, db, all.toArray(new String[0]));
    }

    /** The janitor without the test's --duckdb-extension-dir. */
    CliRun janitorWithout(String command, String db, String... args) {
        List<String> all = new ArrayList<>(List.of(command, "--catalog", twins.catalogArg(db), "--metadata-schema", ExpireTwins.SCHEMA,
                "--output", "json", "--yes"));
        all.addAll(List.of(args));
        return CliRun.run(System.getenv(), all.toArray(new String[0]));
    }

    private static JsonNode table(JsonNode result, String name) {
        for (JsonNode t : result.path("tables")) {
            if (t.path("table_name").asText().equals(name)) {
                return t;
            }
        }
        return null;
    }

    @Test
    void theDryRunPlansWhatDuckLakeDoes() {
        CliRun r = janitor("compact", twins.source, "--dry-run");
        assertThat(r.exitCode()).as(r.err()).isZero();
        JsonNode j = r.json();
        JsonNode small = table(j, "small");
        assertThat(small.path("merge_input_files").asLong()).as("six 100-row files, one with a delete: five merge").isEqualTo(5);
        assertThat(small.path("merge_output_files").asLong()).isEqualTo(1);
        assertThat(small.path("calls").get(0).asText()).isEqualTo("CALL ducklake_merge_adjacent_files('lake', 'small', schema => 'main')");
        JsonNode part = table(j, "part");
        assertThat(part.path("merge_groups").asLong()).as("one group per partition value").isEqualTo(2);
        assertThat(part.path("merge_input_files").asLong()).isEqualTo(6);
        assertThat(part.path("merge_output_files").asLong()).isEqualTo(2);
        JsonNode evolve = table(j, "evolve");
        assertThat(evolve.path("merge_groups").asLong()).as("one group per schema version").isEqualTo(2);
        assertThat(evolve.path("merge_output_files").asLong()).isEqualTo(2);
        JsonNode del = table(j, "del");
        assertThat(del.path("rewrite_files").asLong()).as("990 of 1000 rows deleted").isEqualTo(1);
        assertThat(del.path("rewrite_deleted_rows").asLong()).isEqualTo(990);
        assertThat(del.path("merge_input_files").asLong()).isZero();
        assertThat(del.path("calls").get(0).asText())
                .isEqualTo("CALL ducklake_rewrite_data_files('lake', 'del', schema => 'main', delete_threshold => 0.95)");
        assertThat(table(j, "inl")).as("only inlined rows: nothing to compact").isNull();
        assertThat(j.path("dry_run").asBoolean()).isTrue();
        assertThat(j.path("duckdb_version").isMissingNode()).as("a dry run starts no DuckDB").isTrue();

        CliRun cap = janitor("compact", twins.source, "--dry-run", "--max-input-files", "3");
        JsonNode capped = table(cap.json(), "small");
        assertThat(capped.path("max_compacted_files").asLong()).isEqualTo(1);
        assertThat(capped.path("merge_input_files_bound").asLong()).isLessThanOrEqualTo(5);

        List<String> text = new ArrayList<>(List.of("compact", "--catalog", twins.catalogArg(twins.source), "--metadata-schema",
                ExpireTwins.SCHEMA, "--dry-run"));
        StringWriter out = new StringWriter();
        assertThat(Main.execute(text.toArray(new String[0]), new PrintWriter(out), new PrintWriter(new StringWriter()))).isZero();
        assertThat(out.toString()).contains("DRY RUN, nothing changed").contains("main.small (table_id")
                .contains("    CALL ducklake_merge_adjacent_files('lake', 'small', schema => 'main')").contains("4 of 4 table(s) with work planned");

        CliRun flush = janitor("flush-inlined-data", twins.source, "--dry-run");
        assertThat(flush.exitCode()).as(flush.err()).isZero();
        JsonNode inl = table(flush.json(), "inl");
        assertThat(inl.path("inlined_rows").asLong()).as("4 inserted + 1 updated version").isEqualTo(5);
        assertThat(inl.path("live_inlined_rows").asLong()).isEqualTo(3);
        assertThat(inl.path("calls").get(0).asText())
                .isEqualTo("CALL ducklake_flush_inlined_data('lake', schema_name => 'main', table_name => 'inl')");
        assertThat(table(flush.json(), "small").path("inlined_rows").asLong()).isEqualTo(1);
    }

    @Test
    void compactEqualsDuckLakesOwnFunctions() throws Exception {
        String a = twins.copy("ca");
        String b = twins.copy("cb");
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(a))
                .sql("CALL ducklake_merge_adjacent_files('lake')", "CALL ducklake_rewrite_data_files('lake')")).assertOk();
        CliRun r = janitor("compact", b);
        assertThat(r.exitCode()).as(r.err() + r.out()).isZero();
        JsonNode j = r.json();
        assertThat(j.path("tables_done").asLong()).isEqualTo(4);
        assertThat(j.path("duckdb_version").asText()).isEqualTo("v1.5.5");
        assertThat(j.path("extension_versions").path("ducklake").asText()).isEqualTo(RealDuckLake.require().ducklakeExtensionVersion());
        assertThat(liveFiles(b)).as("live files per table").isEqualTo(liveFiles(a)).isNotEqualTo(liveFiles(twins.source));
        assertThat(rowsEverywhere(b)).isEqualTo(rowsEverywhere(a));
    }

    @Test
    void flushEqualsDuckLakesOwnFunction() throws Exception {
        String a = twins.copy("fa");
        String b = twins.copy("fb");
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(a)).sql("CALL ducklake_flush_inlined_data('lake')")).assertOk();
        CliRun r = janitor("flush-inlined-data", b);
        assertThat(r.exitCode()).as(r.err() + r.out()).isZero();
        JsonNode j = r.json();
        assertThat(j.path("tables_done").asLong()).as("inl and small hold inlined rows").isEqualTo(2);
        assertThat(j.path("remaining_tables_with_work").asLong()).isZero();
        assertThat(liveFiles(b)).isEqualTo(liveFiles(a)).isNotEqualTo(liveFiles(twins.source));
        assertThat(rowsEverywhere(b)).isEqualTo(rowsEverywhere(a));
        CliRun again = janitor("flush-inlined-data", b, "--dry-run");
        assertThat(again.json().path("tables_with_work").asLong()).as("nothing left to flush").isZero();
    }

    @Test
    void capsDeferTablesAndBoundTheMergeCall() throws Exception {
        String b = twins.copy("cap");
        // tables in name order: del (rewrite), evolve (two schema-version groups of two files), part, small
        CliRun r = janitor("compact", b, "--max-tables", "2", "--max-input-files", "2");
        assertThat(r.exitCode()).as(r.err() + r.out()).isZero();
        JsonNode j = r.json();
        assertThat(j.path("tables_done").asLong()).isEqualTo(2);
        assertThat(j.path("tables_deferred").asLong()).isEqualTo(2);
        JsonNode evolve = table(j, "evolve");
        assertThat(evolve.path("calls").get(0).asText())
                .isEqualTo("CALL ducklake_merge_adjacent_files('lake', 'evolve', schema => 'main', max_compacted_files => 1)");
        assertThat(evolve.path("passes").asInt()).as("each capped call merges one group; the table is planned and called again")
                .isEqualTo(2);
        assertThat(j.path("calls_issued").asLong()).as("del's rewrite, evolve's two capped merges").isEqualTo(3);
        assertThat(liveFiles(b).get("evolve")).as("both groups merged in bounded calls, as DuckLake's uncapped call does")
                .isEqualTo("2|200");
        assertThat(table(j, "part").path("status").asText()).isEqualTo("deferred");
        assertThat(liveFiles(b).get("part")).as("deferred: untouched").isEqualTo(liveFiles(twins.source).get("part"));
        assertThat(j.path("remaining_tables_with_work").asLong()).as("part, small, and del's rewritten file with its neighbour")
                .isEqualTo(3);

        // --max-batches bounds the passes too: del's call and evolve's first capped merge, then the run stops
        String c = twins.copy("capb");
        CliRun bounded = janitor("compact", c, "--max-input-files", "2", "--max-batches", "2");
        assertThat(bounded.exitCode()).as(bounded.err() + bounded.out()).isZero();
        assertThat(bounded.json().path("calls_issued").asLong()).isEqualTo(2);
        assertThat(table(bounded.json(), "evolve").path("passes").asInt()).isEqualTo(1);
        assertThat(liveFiles(c).get("evolve")).as("one group merged, the other left for the next run").isEqualTo("3|200");
        assertThat(bounded.json().path("max_batches_reached").asBoolean()).isTrue();

        // a cap below one merge step (small: five files in one step, so max_compacted_files cannot bound the call; found
        // by the 25,000-file benchmark, where --max-input-files 2000 bound 25,000 inputs in one call): the step is split
        // by a lower ducklake_target_file_size, and the table compacted in passes of at most three inputs each, ending
        // where DuckLake's own uncapped merge ends
        String d = twins.copy("capstep");
        JsonNode planned = table(janitor("compact", d, "--max-input-files", "3", "--dry-run").json(), "small");
        assertThat(planned.path("session_target_file_size").asLong()).as("a lower target for the first pass")
                .isPositive().isLessThan(planned.path("target_file_size").asLong());
        assertThat(planned.path("merge_input_files_bound").asLong()).isEqualTo(3);
        CliRun step = janitor("compact", d, "--max-input-files", "3");
        assertThat(step.exitCode()).as(step.err() + step.out()).isZero();
        JsonNode small = table(step.json(), "small");
        assertThat(small.path("status").asText()).isEqualTo("done");
        assertThat(small.path("passes").asInt()).as("three of five inputs, then the merged file with the other two").isEqualTo(2);
        String newestFile = twins.rows(twins.source, "SELECT max(data_file_id) FROM " + ExpireTwins.SCHEMA + ".ducklake_data_file").get(0);
        // DuckLake hard-deletes merged sources and schedules their files: the first pass's output, merged by the second
        assertThat(twins.rows(d, "SELECT count(*) FROM " + ExpireTwins.SCHEMA + ".ducklake_files_scheduled_for_deletion WHERE data_file_id > "
                + newestFile)).as("one intermediate file: small's first pass (evolve's and part's passes write final files)")
                .containsExactly("1");
        assertThat(twins.rows(d, "SELECT f.record_count FROM " + ExpireTwins.SCHEMA + ".ducklake_data_file f JOIN " + ExpireTwins.SCHEMA
                + ".ducklake_table t USING (table_id) WHERE t.table_name = 'small' AND f.data_file_id > " + newestFile))
                .as("the second pass: the first pass's three inputs and the other two").containsExactly("500");
        String own = twins.copy("capown");
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(own)).sql("CALL ducklake_merge_adjacent_files('lake', 'small')"))
                .assertOk();
        assertThat(liveFiles(d).get("small")).isEqualTo(liveFiles(own).get("small")).isNotEqualTo(liveFiles(twins.source).get("small"));
        assertThat(rowsEverywhere(d).entrySet().stream().filter(e -> e.getKey().startsWith("small@")).toList())
                .isEqualTo(rowsEverywhere(own).entrySet().stream().filter(e -> e.getKey().startsWith("small@")).toList());
    }

    /**
     * --target-file-size is the target DuckLake's calls use (the ducklake_target_file_size setting), not only the
     * plan's: before, the plan used the flag while DuckLake merged at the catalog's option. Proven against DuckLake's own
     * functions with the same setting.
     */
    @Test
    void theTargetFileSizeFlagIsTheTargetDuckLakeMergesTo() throws Exception {
        long smallest = Long.parseLong(twins.rows(twins.source, "SELECT min(file_size_bytes) FROM " + ExpireTwins.SCHEMA
                + ".ducklake_data_file f JOIN " + ExpireTwins.SCHEMA + ".ducklake_table t USING (table_id) WHERE t.table_name = 'small'"
                + " AND f.end_snapshot IS NULL").get(0));
        long target = 2 * smallest;
        String a = twins.copy("ta");
        String b = twins.copy("tb");
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(a)).sql("SET ducklake_target_file_size = '" + target + " bytes'",
                "CALL ducklake_merge_adjacent_files('lake')", "CALL ducklake_rewrite_data_files('lake')")).assertOk();
        CliRun r = janitor("compact", b, "--target-file-size", Long.toString(target));
        assertThat(r.exitCode()).as(r.err() + r.out()).isZero();
        assertThat(table(r.json(), "small").path("session_target_file_size").asLong()).isEqualTo(target);
        assertThat(liveFiles(b)).isEqualTo(liveFiles(a));
        assertThat(liveFiles(b).get("small")).as("steps of two at twice the smallest file: more files than at 512 MiB")
                .startsWith("4|");
        assertThat(rowsEverywhere(b)).isEqualTo(rowsEverywhere(a));
    }

    /**
     * --max-bytes (issue 26): tables are taken in plan order while their input bytes fit; one that would go beyond is
     * deferred and left untouched while a later one that fits is still taken; a cap below every table takes none and
     * warns, changing nothing.
     */
    @Test
    void maxBytesTakesTheTablesThatFitAndDefersTheRest() throws Exception {
        JsonNode plan = janitor("compact", twins.source, "--dry-run").json();
        Map<String, Long> bytes = new TreeMap<>();
        for (JsonNode t : plan.path("tables")) {
            bytes.put(t.path("table_name").asText(), t.path("input_bytes").asLong());
        }
        assertThat(bytes.keySet()).containsExactly("del", "evolve", "part", "small");
        assertThat(bytes.values()).allMatch(v -> v > 0);
        assertThat(plan.path("input_bytes").asLong()).isEqualTo(bytes.values().stream().mapToLong(Long::longValue).sum());
        // the cap fits del and the smallest of the others; in plan order (del, evolve, part, small) what does not fit is
        // deferred and the scan goes on
        String smallest = bytes.entrySet().stream().filter(e -> !e.getKey().equals("del")).min(Map.Entry.comparingByValue())
                .orElseThrow().getKey();
        long cap = bytes.get("del") + bytes.get(smallest);
        String b = twins.copy("mb");
        Map<String, String> before = liveFiles(b);
        CliRun r = janitor("compact", b, "--max-bytes", Long.toString(cap));
        assertThat(r.exitCode()).as(r.err() + r.out()).isZero();
        JsonNode j = r.json();
        for (String t : bytes.keySet()) {
            boolean taken = t.equals("del") || t.equals(smallest);
            assertThat(table(j, t).path("status").asText()).as(t).isEqualTo(taken ? "done" : "deferred");
            if (!taken) {
                assertThat(liveFiles(b).get(t)).as(t + " deferred: untouched").isEqualTo(before.get(t));
            }
        }
        assertThat(j.path("input_bytes_taken").asLong()).isEqualTo(cap);
        assertThat(j.path("tables_deferred").asLong()).isEqualTo(2);

        String c2 = twins.copy("mb1");
        Map<String, List<String>> dump = twins.dump(c2);
        CliRun none = janitor("compact", c2, "--max-bytes", Long.toString(bytes.values().stream().mapToLong(Long::longValue).min().orElseThrow() - 1));
        assertThat(none.exitCode()).as(none.err() + none.out()).isZero();
        assertThat(none.json().path("tables_done").asLong()).isZero();
        assertThat(none.json().path("warnings").toString()).contains("more than --max-bytes");
        assertThat(twins.dump(c2)).as("nothing changed").isEqualTo(dump);
    }

    @Test
    void aPasswordGoesToDuckDBAsASecretAndIsNeverPrinted() throws Exception {
        String b = twins.copy("pw");
        String password = "Pw-7f3a-never-printed";
        List<String> args = List.of("flush-inlined-data", "--catalog", twins.catalogArg(b), "--metadata-schema", ExpireTwins.SCHEMA,
                "--yes", "--verbose", "--duckdb-extension-dir", RealDuckLake.require().extensionFilesRoot().toString());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(args.toArray(new String[0]), new PrintWriter(out), new PrintWriter(err), new HashMap<>(Map.of("PGPASSWORD", password)));
        assertThat(code).as(err + "\n" + out).isZero();
        assertThat(out + "\n" + err).contains("engine: DuckDB v1.5.5").doesNotContain(password);
    }

    @Test
    void duckDbAttachesWithTheCatalogsSslmodeAndKeepsTheSslpasswordInTheSecret() throws Exception {
        String b = twins.copy("tls");
        String password = "Pw-4c1e-never-printed";
        String keyPass = "KeyPass-77d0-never-printed";
        dev.ducklake.janitor.ops.compact.EngineSettings settings = dev.ducklake.janitor.ops.compact.EngineSettings.defaults()
                .withExtensionDir(RealDuckLake.require().extensionFilesRoot());
        Map<String, String> env = Map.of("PGPASSWORD", password);
        // the embedded PostgreSQL offers no TLS: with sslmode=require libpq must refuse, where a dropped sslmode would
        // have connected in clear (libpq's default prefer falls back)
        dev.ducklake.janitor.pg.ConnectionSpec require = dev.ducklake.janitor.pg.ConnectionSpec.parse(twins.catalogArg(b)
                + "&sslmode=require&sslpassword=" + keyPass, env, null);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> dev.ducklake.janitor.ops.compact.DuckLakeEngine.open(settings, require,
                        ExpireTwins.SCHEMA, null).close())
                .isInstanceOfSatisfying(dev.ducklake.janitor.JanitorException.class, e -> {
                    assertThat(e.reason().exitCode()).as(e.getMessage()).isEqualTo(3);
                    assertThat(e.getMessage()).contains("DuckLake could not attach").containsIgnoringCase("SSL")
                            .doesNotContain(password).doesNotContain(keyPass);
                });
        dev.ducklake.janitor.pg.ConnectionSpec disable = dev.ducklake.janitor.pg.ConnectionSpec.parse(twins.catalogArg(b)
                + "&sslmode=disable&sslpassword=" + keyPass, env, null);
        try (var engine = dev.ducklake.janitor.ops.compact.DuckLakeEngine.open(settings, disable, ExpireTwins.SCHEMA, null)) {
            assertThat(engine.call("SELECT secret_string FROM duckdb_secrets()")).singleElement().asString()
                    .contains("sslpassword=redacted").doesNotContain(keyPass).doesNotContain(password);
        }
    }

    @Test
    void aBloatedCatalogIsRefusedBeforeAttaching() throws Exception {
        String b = twins.copy("bl");
        Map<String, List<String>> before = twins.dump(b);
        CliRun r = janitor("compact", b, "--max-attach-inlined-tables", "1");
        assertThat(r.exitCode()).as(r.err()).isEqualTo(20);
        assertThat(r.out()).contains("drop-orphan-inline-tables");
        assertThat(twins.dump(b)).as("nothing changed").isEqualTo(before);
    }

    @Test
    void aFormatTheEngineCannotWriteAndAMissingExtensionAreExit21() throws Exception {
        String b = twins.copy("fv");
        try (var c = twins.connect(b); var st = c.createStatement()) {
            st.executeUpdate("UPDATE " + ExpireTwins.SCHEMA + ".ducklake_metadata SET value = '0.4' WHERE key = 'version'");
        }
        CliRun r = janitor("flush-inlined-data", b);
        assertThat(r.exitCode()).as(r.err()).isEqualTo(21);
        assertThat(r.out()).contains("0.4").contains("1.0");
        String c2 = twins.copy("nx");
        Map<String, List<String>> before = twins.dump(c2);
        java.nio.file.Path empty = Files.createTempDirectory("no-extensions");
        // trial 40: the dry run said nothing of an engine the execute run could not start; now it warns, and still ATTACHes nothing
        CliRun dry = janitorWithout("flush-inlined-data", c2, "--dry-run", "--duckdb-extension-dir", empty.toString());
        assertThat(dry.exitCode()).as(dry.err()).isZero();
        assertThat(dry.json().path("warnings").toString()).contains("an execute run would stop before starting DuckDB (exit 21)")
                .contains(empty.toString());
        assertThat(dry.json().path("duckdb_version").isMissingNode()).isTrue();
        assertThat(janitor("flush-inlined-data", c2, "--dry-run").json().path("warnings").toString())
                .as("with the extensions at hand, no such warning").doesNotContain("would stop before starting DuckDB");
        CliRun missing = janitorWithout("compact", c2, "--duckdb-extension-dir", empty.toString());
        assertThat(missing.exitCode()).as(missing.err()).isEqualTo(21);
        assertThat(missing.out()).contains(empty.toString()).contains("ducklake");
        assertThat(twins.dump(c2)).isEqualTo(before);
    }

    /** Live data files per table name: count and summed record_count. */
    private Map<String, String> liveFiles(String db) throws Exception {
        return liveFiles(twins, db);
    }

    /** Table name → {@code live data files|their rows}, from the catalog. */
    static Map<String, String> liveFiles(ExpireTwins twins, String db) throws Exception {
        Map<String, String> out = new TreeMap<>();
        for (String row : twins.rows(db, "SELECT t.table_name, count(f.data_file_id), COALESCE(sum(f.record_count), 0) FROM "
                + ExpireTwins.SCHEMA + ".ducklake_table t LEFT JOIN " + ExpireTwins.SCHEMA + ".ducklake_data_file f ON f.table_id = t.table_id"
                + " AND f.end_snapshot IS NULL WHERE t.end_snapshot IS NULL GROUP BY 1")) {
            String[] p = row.split("\\|", 2);
            out.put(p[0], p[1]);
        }
        return out;
    }

    /** Every table's rows at every snapshot of the source from the table's creation on, and at the twin's newest. */
    private Map<String, JsonNode> rowsEverywhere(String db) throws Exception {
        return rowsEverywhere(twins, db, RealDuckLake.program().attach(twins.attach(db)), newestSource);
    }

    /**
     * Every table's rows at every snapshot from its first to {@code newest}, and at the newest, as DuckLake reads them.
     *
     * @param prog a program that has attached the catalog as {@code lake}
     */
    static Map<String, JsonNode> rowsEverywhere(ExpireTwins twins, String db, RealDuckLake.Program prog, long newest) throws Exception {
        Map<String, Long> begin = new HashMap<>();
        for (String row : twins.rows(db, "SELECT table_name, min(begin_snapshot) FROM " + ExpireTwins.SCHEMA + ".ducklake_table GROUP BY 1")) {
            String[] p = row.split("\\|");
            begin.put(p[0], Long.parseLong(p[1]));
        }
        for (String t : TABLES) {
            for (long s = begin.get(t); s <= newest; s++) {
                prog.query(t + "@" + s, "SELECT * FROM lake." + t + " AT (VERSION => " + s + ") ORDER BY ALL");
            }
            prog.query(t + "@newest", "SELECT * FROM lake." + t + " ORDER BY ALL");
        }
        Map<String, JsonNode> rows = RealDuckLake.require().run(prog).assertOk().namedRows();
        assertThat(rows).hasSizeGreaterThan(TABLES.size() * 3);
        return rows;
    }
}
