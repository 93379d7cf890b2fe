package dev.ducklake.janitor.interop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.JanitorProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26: a DuckLake call in flight is cancelled by a stop request (SIGTERM) and by the run budget running out, instead
 * of running for minutes past Kubernetes' grace period. On a catalog written by real DuckLake 1.5.5 whose one merge is
 * slow (60 files of 10,000 rows rewritten at zstd level 22 in row groups of 4,096 rows, so that DuckDB looks at its
 * interrupt often), the stopped run returns in a fraction of the uncancelled call's time, the catalog is exactly as
 * before (every metadata row, the live files, the rows at every snapshot, no new file under the data path: DuckDB
 * rolled the call back), and the next run compacts to the end state of DuckLake's own function.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CompactStopInteropTest {

    private static final int FILES = 60;
    private static final List<String> TABLES = List.of("a_slow", "b_later");

    private ExpireTwins twins;
    private long newest;

    @BeforeAll
    void writeCatalog() throws Exception {
        RealDuckLake.require();
        twins = new ExpireTwins("cstop");
        List<String> sql = new ArrayList<>(List.of("CREATE TABLE lake.a_slow(id BIGINT, v VARCHAR)"));
        for (int i = 0; i < FILES; i++) {
            sql.add("INSERT INTO lake.a_slow SELECT " + i + " * 10000 + r, md5((" + i + " * 10000 + r)::VARCHAR) FROM range(10000) x(r)");
        }
        sql.addAll(List.of("CREATE TABLE lake.b_later(id INTEGER)",
                "INSERT INTO lake.b_later SELECT i FROM range(100) t(i)",
                "INSERT INTO lake.b_later SELECT i FROM range(100, 200) t(i)",
                // what makes the merge slow: the catalog's Parquet options, read by every file DuckLake writes
                "CALL lake.set_option('parquet_compression', 'zstd')",
                "CALL lake.set_option('parquet_compression_level', 22)",
                "CALL lake.set_option('parquet_row_group_size', 4096)"));
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(twins.source).inliningRowLimit(0))
                .sql(sql.toArray(new String[0]))).assertOk();
        newest = twins.newestSnapshot(twins.source);
    }

    @AfterAll
    void dropDatabases() {
        if (twins != null) {
            twins.close();
        }
    }



    private List<String> args(String command, String db, String... more) {
        List<String> all = new ArrayList<>(List.of(command, "--catalog", twins.catalogArg(db), "--metadata-schema", ExpireTwins.SCHEMA,
                "--output", "json", "--yes", "--duckdb-extension-dir", RealDuckLake.require().extensionFilesRoot().toString(),
                "--duckdb-threads", "1"));
        all.addAll(List.of(more));
        return all;
    }

    private CliRun janitor(String command, String db, String... more) {
        return CliRun.run(System.getenv(), args(command, db, more).toArray(new String[0]));
    }

    private static JsonNode table(JsonNode result, String name) {
        for (JsonNode t : result.path("tables")) {
            if (t.path("table_name").asText().equals(name)) {
                return t;
            }
        }
        throw new AssertionError("no table " + name + " in " + result);
    }

    @Test
    void aStopOrTheRunBudgetCancelsTheCallInFlightAndTheNextRunRedoesIt() throws Exception {
        Map<String, List<String>> before = twins.dump(twins.source);
        Map<String, String> liveBefore = CompactDifferentialInteropTest.liveFiles(twins, twins.source);
        Map<String, JsonNode> rowsBefore = rowsEverywhere(twins.source);
        assertThat(liveBefore.get("a_slow")).isEqualTo(FILES + "|" + FILES * 10000);

        // the uncancelled run: how long the slow call takes
        String full = twins.copy("full");
        CliRun whole = janitor("compact", full);
        assertThat(whole.exitCode()).as(whole.err() + whole.out()).isZero();
        double callSeconds = table(whole.json(), "a_slow").path("seconds").asDouble();
        double wholeSeconds = whole.json().path("elapsed_seconds").asDouble();
        assertThat(callSeconds).as("the slow merge must be slow enough to be stopped in flight").isGreaterThan(4.0);
        assertThat(CompactDifferentialInteropTest.liveFiles(twins, full).get("a_slow")).isEqualTo("1|" + FILES * 10000);

        // SIGTERM while the call runs, in a child JVM: exit 143, the document says stopped, within a fraction of the call
        String term = twins.copy("term");
        long filesBefore = dataFiles();
        JanitorProcess p = JanitorProcess.start(Map.of(), args("compact", term).toArray(new String[0]));
        try {
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (!p.err().contains("DuckLake engine: DuckDB") && System.nanoTime() < deadline && p.process().isAlive()) {
                Thread.sleep(20);
            }
            assertThat(p.err()).as("the engine started").contains("DuckLake engine: DuckDB");
            Thread.sleep(1000);
            assertThat(p.process().isAlive()).as("the call still runs; stdout: " + p.out()).isTrue();
            long t0 = System.nanoTime();
            int code = p.terminate(60);
            double stopSeconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf(java.util.Locale.ROOT, "CompactStopInteropTest: uncancelled call %.1f s (run %.1f s); SIGTERM to exit %.2f s%n",
                    callSeconds, wholeSeconds, stopSeconds);
            assertThat(code).as(p.err()).isEqualTo(143);
            assertThat(stopSeconds).as("the stopped run returned well before the call would have finished (%.1f s)", callSeconds)
                    .isLessThan(callSeconds / 2);
            JsonNode doc = RealDuckLake.JSON.readTree(p.out());
            assertThat(doc.path("status").asText()).isEqualTo("stopped");
            assertThat(doc.path("exit_code").asInt()).isEqualTo(143);
            assertThat(doc.path("stopped_by_signal").asBoolean()).isTrue();
            assertThat(doc.path("budget_exhausted").asBoolean()).as("a signal is no spent budget").isFalse();
            assertThat(doc.path("stopped_during").asText()).isEqualTo("ducklake_call");
            assertThat(table(doc, "a_slow").path("status").asText()).isEqualTo("stopped");
            assertThat(table(doc, "b_later").path("status").asText()).isEqualTo("deferred");
            assertThat(doc.path("calls_issued").asLong()).isZero();
            assertThat(doc.path("tables_done").asLong()).isZero();
            assertThat(doc.path("remaining_tables_with_work").asLong()).isEqualTo(2);
            assertThat(doc.path("warnings").toString()).contains("cancelled in flight").contains("SIGTERM");
        } finally {
            p.cleanup();
        }
        assertUntouched(term, before, liveBefore, rowsBefore);
        assertThat(dataFiles()).as("the cancelled call's output file was removed with its transaction").isEqualTo(filesBefore);

        // the run budget running out while the call runs: exit 0, stopped, budget_exhausted, the same rollback
        String budget = twins.copy("budget");
        long budgetMillis = Math.round((wholeSeconds - callSeconds) * 1000 + callSeconds * 1000 / 3);
        // at a session target (--target-file-size: SET before the table's calls, RESET after): the RESET after the
        // cancelled call still runs on DuckDB's connection, and the run ends as a stop, not as a failure
        CliRun cut = janitor("compact", budget, "--run-budget", budgetMillis + "ms", "--target-file-size", Long.toString(512L << 20));
        assertThat(cut.exitCode()).as(cut.err() + cut.out()).isZero();
        JsonNode j = cut.json();
        assertThat(j.path("status").asText()).isEqualTo("stopped");
        assertThat(j.path("budget_exhausted").asBoolean()).isTrue();
        assertThat(j.path("stopped_by_signal").asBoolean()).isFalse();
        assertThat(j.path("stopped_during").asText()).isEqualTo("ducklake_call");
        assertThat(table(j, "a_slow").path("status").asText()).isEqualTo("stopped");
        assertThat(table(j, "a_slow").path("attempts").asInt()).as("a cancelled call is not retried").isEqualTo(1);
        assertThat(table(j, "a_slow").path("session_target_file_size").asLong()).isEqualTo(512L << 20);
        assertThat(j.path("retries").asLong()).isZero();
        assertThat(j.path("elapsed_seconds").asDouble()).as("the budget (%d ms) ended the call, not the call's own end (%.1f s)",
                budgetMillis, wholeSeconds).isLessThan(wholeSeconds - callSeconds / 3);
        assertThat(j.path("warnings").toString()).contains("the run budget ran out");
        System.out.printf(java.util.Locale.ROOT, "CompactStopInteropTest: --run-budget %d ms: run %.1f s%n", budgetMillis,
                j.path("elapsed_seconds").asDouble());
        assertUntouched(budget, before, liveBefore, rowsBefore);
        assertThat(dataFiles()).isEqualTo(filesBefore);

        // the next run redoes it and ends where DuckLake's own function ends
        CliRun again = janitor("compact", term);
        assertThat(again.exitCode()).as(again.err() + again.out()).isZero();
        assertThat(again.json().path("tables_done").asLong()).isEqualTo(2);
        String own = twins.copy("own");
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(own))
                .sql("CALL ducklake_merge_adjacent_files('lake')", "CALL ducklake_rewrite_data_files('lake')")).assertOk();
        assertThat(CompactDifferentialInteropTest.liveFiles(twins, term)).isEqualTo(CompactDifferentialInteropTest.liveFiles(twins, own))
                .isNotEqualTo(liveBefore);
        assertThat(rowsEverywhere(term)).isEqualTo(rowsEverywhere(own)).isEqualTo(rowsBefore);
    }

    private void assertUntouched(String db, Map<String, List<String>> before, Map<String, String> liveBefore,
                                 Map<String, JsonNode> rowsBefore) throws Exception {
        assertThat(CompactDifferentialInteropTest.liveFiles(twins, db)).as("live files per table").isEqualTo(liveBefore);
        assertThat(twins.dump(db)).as("every row of the metadata schema: no snapshot committed").isEqualTo(before);
        assertThat(rowsEverywhere(db)).as("rows at every snapshot").isEqualTo(rowsBefore);
    }

    /** Files under the catalog's data path (every copy shares it). */
    private long dataFiles() throws IOException {
        try (Stream<Path> s = Files.walk(twins.dataDir)) {
            return s.filter(Files::isRegularFile).count();
        }
    }

    /** Each table's row count and fingerprint at every snapshot from its creation on, and at the newest, as DuckLake reads them. */
    private Map<String, JsonNode> rowsEverywhere(String db) throws Exception {
        Map<String, Long> begin = new TreeMap<>();
        for (String row : twins.rows(db, "SELECT table_name, min(begin_snapshot) FROM " + ExpireTwins.SCHEMA + ".ducklake_table GROUP BY 1")) {
            String[] f = row.split("\\|");
            begin.put(f[0], Long.parseLong(f[1]));
        }
        RealDuckLake.Program prog = RealDuckLake.program().attach(twins.attach(db));
        for (String t : TABLES) {
            String cols = t.equals("a_slow") ? "count(*), sum(id), bit_xor(hash(id, v))" : "count(*), sum(id), bit_xor(hash(id))";
            for (long s = begin.get(t); s <= newest; s++) {
                prog.query(t + "@" + s, "SELECT " + cols + " FROM lake." + t + " AT (VERSION => " + s + ")");
            }
            prog.query(t + "@newest", "SELECT " + cols + " FROM lake." + t);
        }
        Map<String, JsonNode> rows = RealDuckLake.require().run(prog).assertOk().namedRows();
        assertThat(rows).hasSizeGreaterThan(FILES);
        return rows;
    }
}
