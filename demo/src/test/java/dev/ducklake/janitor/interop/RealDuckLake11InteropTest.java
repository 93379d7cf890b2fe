package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.interop.InteropCatalog.JanitorRun;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 22, item 1: ready for a real DuckLake that writes format 1.1 (DuckDB 2.0's). Skips, with one printed line naming
 * the reason, until {@code scripts/install-ducklake-test-env.sh format-1.1} finds such a build on the package index
 * ({@link RealDuckLake#format11()}); today the index has DuckDB 2.0.x but {@code duckdb-extension-ducklake} stops at
 * 1.5.5. When it runs: DuckLake creates a 1.1 catalog with inlined and Parquet data, drops and churns tables, the
 * janitor finds exactly the leaked inlined tables of a hand-written expiry, drops them, and DuckLake keeps reading and
 * writing the catalog.
 */
class RealDuckLake11InteropTest {

    private final List<InteropCatalog> lakes = new ArrayList<>();

    @AfterEach
    void cleanup() {
        lakes.forEach(InteropCatalog::deleteDataDir);
    }

    @Test
    void aCatalogWrittenByDuckLake11IsHandledAndDuckLakeKeepsWorking() throws Exception {
        RealDuckLake dl = RealDuckLake.format11();
        InteropCatalog lake = InteropCatalog.fresh("il_f11_real");
        lakes.add(lake);
        RealDuckLake.Program p = RealDuckLake.program().attach(lake.attach().inliningRowLimit(10))
                .sql("CREATE TABLE lake.live(id INTEGER, v VARCHAR)", "INSERT INTO lake.live VALUES (1, 'a'), (2, 'b')",
                        "INSERT INTO lake.live SELECT i, 'p' FROM range(100) t(i)", "DELETE FROM lake.live WHERE id = 1");
        ConcurrentWriterInteropTest.createAndDrop(p, "gone_", 5);
        dl.run(p).assertOk();
        assertThat(lake.formatVersion()).as("DuckLake for DuckDB 2.x creates format 1.1").isEqualTo("1.1");
        lake.pgNativeExpireBelow(lake.snapshotBounds()[1]);
        JanitorRun dry = lake.janitorDryRun();
        assertThat(dry.json().path("format_version").asText()).isEqualTo("1.1");
        assertThat(dry.count("orphan_rows")).isEqualTo(5);
        assertThat(lake.janitorExecute().count("dropped")).isEqualTo(5);
        RealDuckLake.Result after = dl.run(RealDuckLake.program().attach(lake.attach())
                .sql("INSERT INTO lake.live VALUES (500, 'after')")
                .query("n", "SELECT count(*) FROM lake.live"));
        assertThat(after.rows("n")).containsExactly(List.of("102"));
    }
}
