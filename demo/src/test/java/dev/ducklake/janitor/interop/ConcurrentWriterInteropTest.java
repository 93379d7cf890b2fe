package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.interop.InteropCatalog.JanitorRun;
import dev.ducklake.janitor.interop.InteropCatalog.RegistryRow;
import dev.ducklake.janitor.interop.InteropCatalog.TableRow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 4: a real DuckLake writer keeps committing small (inlined) inserts into a live table while the
 * janitor drops leaked inlined tables in many small batches. Both finish; the writer loses no row; the
 * janitor drops only orphans.
 */
class ConcurrentWriterInteropTest {

    static final int LEAKED_TABLES = 150;

    private InteropCatalog lake;

    @AfterEach
    void cleanup() {
        if (lake != null) {
            lake.deleteDataDir();
        }
    }

    /** Creates and drops {@code n} tables in two DuckLake transactions: each leaves one empty inlined table. */
    static RealDuckLake.Program createAndDrop(RealDuckLake.Program p, String prefix, int n) {
        List<String> create = new ArrayList<>();
        List<String> drop = new ArrayList<>();
        create.add("BEGIN");
        drop.add("BEGIN");
        for (int i = 0; i < n; i++) {
            create.add("CREATE TABLE lake." + prefix + i + "(id INTEGER, v VARCHAR)");
            drop.add("DROP TABLE lake." + prefix + i);
        }
        create.add("COMMIT");
        drop.add("COMMIT");
        return p.sql(create.toArray(new String[0])).sql(drop.toArray(new String[0]));
    }

    @Test
    void writerLosesNoRowAndJanitorDropsOnlyOrphans() throws Exception {
        lake = InteropCatalog.fresh("il_conc");
        RealDuckLake.Program setup = RealDuckLake.program()
                .attach(lake.attach().inliningRowLimit(100))
                .sql("CREATE TABLE lake.w(id BIGINT, v VARCHAR)", "INSERT INTO lake.w VALUES (-1, 'seed')",
                        "CREATE TABLE lake.other(id INTEGER)", "INSERT INTO lake.other VALUES (1), (2)");
        createAndDrop(setup, "churn_", LEAKED_TABLES);
        lake.run(setup);
        long[] bounds = lake.snapshotBounds();
        lake.pgNativeExpireBelow(bounds[1]);

        List<TableRow> tables = lake.tables();
        Set<Long> liveIds = tables.stream().filter(t -> t.endSnapshot() == null).map(TableRow::tableId)
                .collect(Collectors.toSet());
        List<RegistryRow> registry = lake.registry();
        List<RegistryRow> liveRows = registry.stream().filter(r -> liveIds.contains(r.tableId())).toList();
        List<RegistryRow> orphans = registry.stream().filter(r -> !liveIds.contains(r.tableId())).toList();
        assertThat(orphans).hasSize(LEAKED_TABLES);
        assertThat(liveRows).hasSize(2);
        long wId = tables.stream().filter(t -> t.tableName().equals("w")).findFirst().orElseThrow().tableId();
        String wInlined = liveRows.stream().filter(r -> r.tableId() == wId).findFirst().orElseThrow().tableName();
        assertThat(lake.janitorDryRun().count("orphan_rows")).isEqualTo(LEAKED_TABLES);

        // ---- the writer: one inlined INSERT per DuckLake commit until told to stop ------------------------
        Path dir = Files.createTempDirectory("ducklake-writer-");
        Path ready = dir.resolve("ready");
        Path stop = dir.resolve("stop");
        RealDuckLake.Running writer = lake.duckLake().start(RealDuckLake.program()
                .attach(lake.attach())
                .repeat("writer", "INSERT INTO lake.w VALUES ({i}, 'row {i}')", 0, stop, ready, 5, 120));
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!Files.exists(ready) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(ready).as("writer started").exists();

        JanitorRun exec;
        long rowsAtJanitorStart;
        long rowsAtJanitorEnd;
        try {
            rowsAtJanitorStart = lake.rowCount(wInlined);
            exec = lake.janitorExecute("--batch-size", "5");
            rowsAtJanitorEnd = lake.rowCount(wInlined);
            Thread.sleep(300); // a few more commits after the janitor
        } finally {
            Files.writeString(stop, "stop");
        }
        RealDuckLake.Result w = writer.await(120).assertOk();
        Files.deleteIfExists(ready);
        Files.deleteIfExists(stop);
        Files.deleteIfExists(dir);

        // both finished; they really overlapped
        assertThat(rowsAtJanitorEnd).as("writer committed while the janitor ran").isGreaterThan(rowsAtJanitorStart);
        assertThat(w.step("writer").path("failures")).isEmpty();
        List<Long> committed = new ArrayList<>();
        w.step("writer").path("committed").forEach(n -> committed.add(n.asLong()));
        assertThat(committed).hasSizeGreaterThanOrEqualTo(5);

        System.out.printf("concurrency: writer committed %d rows (%d during the janitor run of %.2f s, %d batches)%n",
                committed.size(), rowsAtJanitorEnd - rowsAtJanitorStart, exec.json().path("elapsed_seconds").asDouble(),
                exec.json().path("batches").asInt());

        // the janitor dropped exactly the orphans, in many batches, and nothing of a live table
        assertThat(exec.count("dropped")).isEqualTo(LEAKED_TABLES);
        assertThat(exec.count("remaining")).isZero();
        assertThat(exec.count("skipped_locked")).isZero();
        assertThat(exec.json().path("batches").asInt()).isGreaterThanOrEqualTo(LEAKED_TABLES / 5);
        assertThat(lake.registry()).isEqualTo(liveRows);
        assertThat(lake.inlinedRelations()).containsExactlyInAnyOrderElementsOf(
                liveRows.stream().map(RegistryRow::tableName).toList());

        // no row lost: a fresh DuckLake session reads exactly the seed row plus every committed row
        RealDuckLake.Result read = lake.run(RealDuckLake.program().attach(lake.attach())
                .query("w", "SELECT id FROM lake.w ORDER BY id")
                .query("other", "SELECT id FROM lake.other ORDER BY id"));
        List<String> expected = new ArrayList<>();
        expected.add("-1");
        committed.forEach(i -> expected.add(Long.toString(i)));
        assertThat(read.rows("w").stream().map(r -> r.get(0)).toList()).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(read.rows("other")).containsExactly(List.of("1"), List.of("2"));
    }
}
