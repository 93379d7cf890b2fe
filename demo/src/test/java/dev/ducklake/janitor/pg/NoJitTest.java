package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.catalog.CatalogInfo;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.metrics.CatalogHealthCollector;
import dev.ducklake.janitor.ops.check.CheckOptions;
import dev.ducklake.janitor.catalog.health.CheckRules;
import dev.ducklake.janitor.catalog.health.InlineSurvey;
import dev.ducklake.janitor.catalog.health.RuleEvaluation;
import dev.ducklake.janitor.catalog.health.RuleOutcome;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Issue 23 item 1: no statement the janitor runs is JIT-compiled, on a server with JIT on (Debian's, PGDG's and the
 * official images' default). Before the fix {@code check} and {@code metrics} set {@code enable_nestloop = off}, which
 * pushes plan costs to ~1e10, far above {@code jit_above_cost}, and every statement was compiled: 21 s instead of 1 s.
 *
 * <p>Detection: the commands run as a role with {@code jit_above_cost = 0}, so that every statement not covered by the
 * janitor's own {@code jit = off} is compiled; {@code pg_stat_statements.jit_functions} (PostgreSQL 15+) then names it.
 * Runs on the server of {@code DUCKLAKE_JANITOR_TEST_PG_URL} when it has a JIT provider and pg_stat_statements
 * ({@code scripts/jit-postgres.sh} starts one; {@code .ci/run} does); skipped on the embedded server, which has no
 * JIT, unless {@code DUCKLAKE_JANITOR_REQUIRE_JIT=1}, where the skip is a failure.
 */
class NoJitTest {

    static final String ROLE = "janitor_jit_probe";

    private final TestPostgres pg = TestPostgres.get();

    @TempDir
    Path tmp;

    @BeforeAll
    static void jitServer() throws SQLException {
        TestPostgres pg = TestPostgres.get();
        String missing = null;
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            // pg_jit_available() is false while jit is off, and the janitor's sessions (pg.connect()) turn it off
            st.execute("SET jit = on");
            try (ResultSet rs = st.executeQuery("SELECT pg_catalog.pg_jit_available(), current_setting('server_version_num')::int,"
                    + " EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'pg_stat_statements')")) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    missing = "the server has no JIT provider";
                } else if (rs.getInt(2) < 150000) {
                    missing = "pg_stat_statements has jit_functions from PostgreSQL 15 on";
                } else if (!rs.getBoolean(3)) {
                    missing = "pg_stat_statements is not installed (shared_preload_libraries + CREATE EXTENSION)";
                }
            }
            if (missing == null) {
                st.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = '" + ROLE + "') THEN"
                        + " CREATE ROLE " + ROLE + " LOGIN SUPERUSER; END IF; END $$");
                // every statement costs more than 0: without the janitor's own jit = off each one is compiled
                st.execute("ALTER ROLE " + ROLE + " SET jit_above_cost = 0");
                st.execute("ALTER ROLE " + ROLE + " SET jit = on");
            }
        }
        if (missing != null) {
            if ("1".equals(System.getenv("DUCKLAKE_JANITOR_REQUIRE_JIT"))) {
                fail("DUCKLAKE_JANITOR_REQUIRE_JIT=1 but " + missing + " (run the tests with DUCKLAKE_JANITOR_TEST_PG_URL"
                        + " from scripts/jit-postgres.sh)");
            }
            Assumptions.abort(missing + "; start one with scripts/jit-postgres.sh and set DUCKLAKE_JANITOR_TEST_PG_URL");
        }
    }

    @BeforeEach
    void resetStatements() throws SQLException {
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("SELECT pg_stat_statements_reset((SELECT oid FROM pg_catalog.pg_roles WHERE rolname = '" + ROLE + "'), 0, 0)");
        }
    }

    /** The test server's connection as the probe role (the test servers trust loopback logins). */
    private String probe() {
        ConnectionSpec s = pg.spec();
        return "postgresql://" + ROLE + "@" + s.host() + ":" + s.port() + "/" + s.database();
    }

    /** The probe role's statements that were JIT-compiled since the reset, and how many it ran at all. */
    private record Compiled(List<String> statements, long calls) {
    }

    private Compiled compiled() throws SQLException {
        List<String> out = new ArrayList<>();
        long calls = 0;
        try (Connection c = pg.connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
                "SELECT calls, jit_functions, query FROM pg_stat_statements WHERE userid = (SELECT oid FROM pg_catalog.pg_roles"
                        + " WHERE rolname = '" + ROLE + "')")) {
            while (rs.next()) {
                calls += rs.getLong(1);
                if (rs.getLong(2) > 0) {
                    out.add(rs.getLong(2) + " functions: " + rs.getString(3));
                }
            }
        }
        return new Compiled(out, calls);
    }

    private void assertNothingCompiled(String what) throws SQLException {
        Compiled c = compiled();
        assertThat(c.calls()).as("%s ran statements as %s (else the test proves nothing)", what, ROLE).isGreaterThan(5);
        assertThat(c.statements()).as("%s: statements JIT-compiled with jit_above_cost = 0", what).isEmpty();
    }

    private String leaked(String prefix) throws SQLException {
        String schema = pg.freshSchema(prefix);
        try (Connection c = pg.connect()) {
            DemoScenario.build(c, schema, 12);
            Catalogs.exec(c, "INSERT INTO " + Sql.qualified(schema, "ducklake_table_stats") + " VALUES (900, 1, 1, 1)");
            Catalogs.exec(c, "INSERT INTO " + Sql.qualified(schema, "ducklake_table_column_stats") + " (table_id, column_id) VALUES (900, 1)");
        }
        return schema;
    }

    /** A session of the probe role as a client other than the janitor opens it: no session settings of ours. */
    private Connection plainSession() throws SQLException {
        ConnectionSpec s = pg.spec();
        return DriverManager.getConnection(s.jdbcUrl() + "?user=" + ROLE);
    }

    @Test
    void theDetectionSeesAStatementThatDoesNotTurnJitOff() throws Exception {
        try (Connection c = plainSession(); Statement st = c.createStatement()) {
            for (int i = 0; i < 6; i++) {
                st.execute("SELECT count(*) FROM pg_catalog.pg_class");
            }
        }
        assertThat(compiled().statements()).as("a plain query as the probe role is compiled").isNotEmpty();
        resetStatements();
        try (Connection c = ConnectionSpec.parse(probe(), Map.of(), null).openRaw(); Statement st = c.createStatement()) {
            for (int i = 0; i < 6; i++) {
                st.execute("SELECT count(*) FROM pg_catalog.pg_class");
            }
        }
        assertNothingCompiled("the same query on a janitor session");
    }

    /**
     * Behind a transaction-mode pooler the session's {@code jit = off} may be on another server connection: the
     * transactions of check and the metrics collector (the ones planned with {@code enable_nestloop = off}, cost ~1e10)
     * turn JIT off themselves. Only the statement that sets it is planned before it applies (a one-row Result, cost
     * 0.01: never above a real {@code jit_above_cost}).
     */
    @Test
    void checkAndCollectorTransactionsTurnJitOffThemselves() throws Exception {
        String schema = leaked("nojit_local");
        try (Connection c = ConnectionSpec.parse(probe(), Map.of(), null).openRaw()) {
            try (Statement st = c.createStatement()) {
                st.execute("SET jit = on");
            }
            CatalogInfo info = CatalogInspector.inspect(c, schema, false);
            resetStatements();
            List<RuleOutcome> outcomes = RuleEvaluation.evaluate(c, info, CheckOptions.defaults().withMetadataSchema(schema).settings(),
                    InlineSurvey.on(c, info, 5), CheckRules.all());
            assertThat(outcomes).as("every rule ran").allMatch(o -> o.error() == null);
            dev.ducklake.janitor.metrics.CollectResult r = new CatalogHealthCollector(c, schema, "t", Duration.ofSeconds(60), List.of()).collect();
            assertThat(r.errors()).isEmpty();
        }
        Compiled c = compiled();
        assertThat(c.calls()).isGreaterThan(20);
        // the autocommit lookups (a count of ducklake_snapshot, a metadata key) rely on the session setting alone: cheap
        // plans, far below a real jit_above_cost; the anti-joins and unions of the rules and the collector must not
        assertThat(c.statements()).as("catalog-wide statements compiled in the check's and the collector's transactions")
                .noneMatch(q -> q.contains("EXISTS") || q.contains("UNION ALL") || q.contains("pg_attribute"));
    }

    @Test
    void checkAndMetrics() throws Exception {
        String schema = leaked("nojit_check");
        CliRun check = CliRun.run("check", "--catalog", probe(), "--metadata-schema", schema);
        assertThat(check.exitCode()).as(check.all()).isEqualTo(12);
        assertNothingCompiled("check");
        resetStatements();
        CliRun metrics = CliRun.run("metrics", "--catalog", probe(), "--metadata-schema", schema);
        assertThat(metrics.exitCode()).as(metrics.all()).isZero();
        assertThat(metrics.out()).contains("ducklake_janitor_up");
        assertNothingCompiled("metrics");
    }

    @Test
    void theMaintenanceOperations() throws Exception {
        String schema = leaked("nojit_ops");
        for (List<String> cmd : List.of(
                List.of("expire-snapshots", "--older-than", "1d", "--retain-last", "2", "--dry-run"),
                List.of("expire-snapshots", "--older-than", "1d", "--retain-last", "2", "--yes"),
                List.of("drop-orphan-inline-tables", "--include-unregistered", "--dry-run"),
                List.of("drop-orphan-inline-tables", "--include-unregistered", "--yes"),
                List.of("purge-orphan-stats", "--dry-run"),
                List.of("purge-orphan-stats", "--yes"))) {
            resetStatements();
            List<String> args = new ArrayList<>(cmd);
            args.addAll(List.of("--catalog", probe(), "--metadata-schema", schema));
            CliRun run = CliRun.run(args.toArray(String[]::new));
            assertThat(run.exitCode()).as("%s: %s", cmd, run.all()).isIn(0, 12);
            assertNothingCompiled(String.join(" ", cmd));
        }
    }

    @Test
    void theStorageOperations() throws Exception {
        Path lake = tmp.resolve("lake");
        FileCatalog cat = FileCatalog.create("nojit_files", lake + "/");
        FileCatalog.file(lake.resolve("main/test/a.parquet"), Duration.ofDays(3));
        FileCatalog.file(lake.resolve("main/test/stray.parquet"), Duration.ofDays(30));
        cat.queue("main/test/a.parquet", true, Duration.ofDays(3));
        // delete-orphan-files refuses a listing with none of the catalog's own files
        FileCatalog.file(lake.resolve("main/test/live.parquet"), Duration.ofDays(30));
        cat.dataFile(1, "live.parquet", true);
        for (String cmd : List.of("cleanup-old-files", "delete-orphan-files")) {
            for (String mode : List.of("--dry-run", "--yes")) {
                resetStatements();
                CliRun run = CliRun.run(cmd, mode, "--catalog", probe(), "--metadata-schema", cat.schema, "--older-than", "1d");
                assertThat(run.exitCode()).as("%s %s: %s", cmd, mode, run.all()).isIn(0, 12);
                assertNothingCompiled(cmd + " " + mode);
            }
        }
        assertThat(Files.exists(lake.resolve("main/test/a.parquet"))).as("the storage runs did their work").isFalse();
    }
}
