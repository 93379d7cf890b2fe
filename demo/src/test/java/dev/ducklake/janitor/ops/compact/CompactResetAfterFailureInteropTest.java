package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.interop.RealDuckLake;
import dev.ducklake.janitor.ops.runtime.MaintenanceRun;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Issue 26: when a DuckLake call fails and the {@code RESET ducklake_target_file_size} after it fails too, the error
 * thrown is the call's, with the RESET's attached as suppressed (before, the RESET's replaced it, and the operator read
 * "DuckDB refused RESET" instead of why DuckLake failed). Reproduced on real DuckLake 1.5.5 without mocks: DuckDB's
 * connection is closed under a running merge (DuckDB's JDBC close interrupts the call, then closes), so the call fails
 * and the RESET finds the connection closed.
 */
class CompactResetAfterFailureInteropTest {

    private static final String SCHEMA = "lake_meta";

    @Test
    void theCallsErrorIsThrownAndTheResetFailureIsSuppressed() throws Exception {
        RealDuckLake duck = RealDuckLake.require();
        TestPostgres pg = TestPostgres.get();
        String db = ("creset_" + ProcessHandle.current().pid()).toLowerCase();
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db));
            st.execute("CREATE DATABASE " + Sql.ident(db));
        }
        try {
            ConnectionSpec spec = pg.spec().withDatabase(db);
            Path data = Files.createTempDirectory("ducklake-creset-");
            List<String> sql = new ArrayList<>(List.of("CREATE TABLE lake.t(id BIGINT, v VARCHAR)"));
            for (int i = 0; i < 20; i++) {
                sql.add("INSERT INTO lake.t SELECT " + i + " * 10000 + r, md5((" + i + " * 10000 + r)::VARCHAR) FROM range(10000) x(r)");
            }
            // a merge slow enough to be running when the connection is closed (zstd level 22)
            sql.addAll(List.of("CALL lake.set_option('parquet_compression', 'zstd')", "CALL lake.set_option('parquet_compression_level', 22)",
                    "CALL lake.set_option('parquet_row_group_size', 4096)"));
            String libpq = "host=" + spec.host() + " port=" + spec.port() + " dbname=" + db + " user=" + spec.user();
            duck.run(RealDuckLake.program().attach(new RealDuckLake.Attach(libpq, data + "/").metadataSchema(SCHEMA).inliningRowLimit(0))
                    .sql(sql.toArray(new String[0]))).assertOk();

            // --target-file-size: the table's calls run between SET and RESET ducklake_target_file_size
            CompactOptions options = CompactOptions.defaults(CompactMode.COMPACT).withRun(RunOptions.builder().metadataSchema(SCHEMA).build())
                    .withThresholds(1L << 29, null).withEngine(EngineSettings.defaults().withExtensionDir(duck.extensionFilesRoot()));
            CompactTables op = new CompactTables(spec, options, ProgressListener.NONE);
            try (MaintenanceRun run = MaintenanceRun.open(spec, options.run(), ProgressListener.NONE, new AtomicBoolean())) {
                CatalogInfo info = run.inspectAndLock();
                TablePlan plan = run.queries().readOnly("planning", options.run().statementTimeout(),
                        c -> new CompactionPlanner(c, info, options).plan()).stream().filter(TablePlan::hasWork).findFirst().orElseThrow();
                assertThat(plan.sessionTargetFileSize()).isEqualTo(1L << 29);
                try (DuckLakeEngine engine = DuckLakeEngine.open(options.engine(), spec, SCHEMA, data + "/")) {
                    CompletableFuture<TableOutcome> call = CompletableFuture.supplyAsync(() -> {
                        try {
                            return op.execute(run, engine, plan);
                        } catch (JanitorException e) {
                            throw new java.util.concurrent.CompletionException(e);
                        }
                    });
                    Thread.sleep(1000);
                    assertThat(call).as("the merge is still running").isNotDone();
                    engine.connection().close();
                    assertThatThrownBy(() -> call.get(60, TimeUnit.SECONDS)).cause()
                            .isInstanceOfSatisfying(JanitorException.class, e -> {
                                assertThat(e.getMessage()).as("the call's failure, not the RESET's")
                                        .startsWith("DuckLake failed on main.t: CALL ducklake_merge_adjacent_files").doesNotContain("RESET");
                                assertThat(e.getSuppressed()).singleElement().extracting(Throwable::getMessage).asString()
                                        .contains("DuckDB refused RESET ducklake_target_file_size");
                            });
                }
            }
        } finally {
            try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
            }
        }
    }
}
