package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.sql.Connection;
import java.sql.Statement;
import java.util.Locale;

/**
 * Issue 23 item 1: builds the leaked catalog the JIT figures of docs/benchmark.md are measured on, in schema
 * {@code jit_bench} of the server of {@code DUCKLAKE_JANITOR_TEST_PG_URL} (start a JIT-enabled one with
 * {@code scripts/jit-postgres.sh}). Not part of the default run; prints numbers:
 * {@code mvn -B -q test -Dtest=JitBenchmark -Dducklake.bench=true [-Dducklake.bench.tables=20000]}. The commands are
 * then timed from the shell (docs/benchmark.md, "JIT"): {@code check}, {@code metrics} (one collection, the same
 * collector {@code serve} runs) with this build on the JIT server, and with the build before the fix with and
 * without {@code PGOPTIONS='-c jit=off'}.
 */
@EnabledIfSystemProperty(named = "ducklake.bench", matches = "true")
class JitBenchmark {

    @Test
    void buildTheLeakedCatalog() throws Exception {
        int tables = Integer.getInteger("ducklake.bench.tables", 20_000);
        TestPostgres pg = TestPostgres.get();
        long t0 = System.nanoTime();
        try (Connection c = pg.connect()) {
            try (Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS jit_bench CASCADE");
            }
            DemoScenario.build(c, "jit_bench", tables);
            try (Statement st = c.createStatement()) {
                st.execute("ANALYZE");
            }
        }
        System.out.printf(Locale.ROOT, "built jit_bench with %d leaked inlined tables in %.1f s%n", tables,
                (System.nanoTime() - t0) / 1e9);
    }
}
