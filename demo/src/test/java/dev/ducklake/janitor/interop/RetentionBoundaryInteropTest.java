package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.interop.InteropCatalog.JanitorRun;
import dev.ducklake.janitor.interop.InteropCatalog.RegistryRow;
import dev.ducklake.janitor.interop.InteropCatalog.TableRow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 3: the retention boundary. Two twin catalogs get the same history from real DuckLake: table
 * {@code d_out} is dropped at snapshot E and {@code d_in} at E + 1; then every snapshot below E is expired,
 * so d_out falls just outside the retained range (its end_snapshot equals the oldest retained snapshot) and
 * d_in just inside (end_snapshot = oldest + 1).
 *
 * <p>Twin A is expired by DuckLake itself ({@code ducklake_expire_snapshots}); DuckLake 1.5.5 then removes
 * d_out's inlined tables on its own, and the janitor must find nothing to do. Twin B has the same snapshots
 * removed the Postgres-native way (which leaks); the janitor must drop exactly what DuckLake dropped in twin
 * A: d_out's inlined tables, and keep d_in's. In both, time travel to every retained snapshot still reads.
 */
class RetentionBoundaryInteropTest {

    private final List<InteropCatalog> lakes = new ArrayList<>();

    @AfterEach
    void cleanup() {
        lakes.forEach(InteropCatalog::deleteDataDir);
    }

    private RealDuckLake.Result history(InteropCatalog lake) {
        return lake.run(RealDuckLake.program()
                .attach(lake.attach().inliningRowLimit(100))
                .sql("CREATE TABLE lake.keep_live(id INTEGER, v VARCHAR)",
                        "INSERT INTO lake.keep_live VALUES (1, 'a'), (2, 'b')",
                        "CREATE TABLE lake.d_out(id INTEGER, v VARCHAR)",
                        "INSERT INTO lake.d_out VALUES (10, 'out'), (11, 'out2')",
                        "ALTER TABLE lake.d_out ADD COLUMN w DOUBLE",
                        "INSERT INTO lake.d_out VALUES (12, 'out3', 0.5)",
                        // periodic flush: d_out's rows go to Parquet, its newest inlined table stays (empty)
                        "CALL ducklake_flush_inlined_data('lake')",
                        "CREATE TABLE lake.d_in(id INTEGER, v VARCHAR)",
                        "INSERT INTO lake.d_in VALUES (20, 'in'), (21, 'in2')")
                .query("before_drops", "SELECT max(snapshot_id) FROM lake.snapshots()")
                .sql("DROP TABLE lake.d_out", "DROP TABLE lake.d_in",
                        "INSERT INTO lake.keep_live VALUES (3, 'c')",
                        "INSERT INTO lake.keep_live VALUES (4, 'd')"));
    }

    private static RealDuckLake.Program timeTravel(InteropCatalog lake, List<TableRow> tables) throws Exception {
        RealDuckLake.Program p = RealDuckLake.program().attach(lake.attach());
        for (long s : lake.snapshotIds()) {
            for (TableRow t : tables) {
                if (t.beginSnapshot() <= s && (t.endSnapshot() == null || s < t.endSnapshot())) {
                    p.query("at_" + s + "_" + t.tableName(),
                            "SELECT * FROM lake." + t.tableName() + " AT (VERSION => " + s + ") ORDER BY ALL");
                }
            }
        }
        return p;
    }

    @Test
    void janitorKeepsJustInsideAndDropsJustOutsideLikeDuckLakeItself() throws Exception {
        InteropCatalog a = InteropCatalog.fresh("il_ret_a");
        InteropCatalog b = InteropCatalog.fresh("il_ret_b");
        lakes.add(a);
        lakes.add(b);
        long e = history(a).scalar("before_drops") + 1;
        assertThat(history(b).scalar("before_drops") + 1).isEqualTo(e);
        assertThat(a.registry()).isEqualTo(b.registry());

        List<TableRow> tables = a.tables();
        TableRow dOut = tables.stream().filter(t -> t.tableName().equals("d_out")).findFirst().orElseThrow();
        TableRow dIn = tables.stream().filter(t -> t.tableName().equals("d_in")).findFirst().orElseThrow();
        TableRow live = tables.stream().filter(t -> t.tableName().equals("keep_live")).findFirst().orElseThrow();
        assertThat(dOut.endSnapshot()).isEqualTo(e);
        assertThat(dIn.endSnapshot()).isEqualTo(e + 1);
        List<RegistryRow> registry = a.registry();
        List<RegistryRow> outRows = registry.stream().filter(r -> r.tableId() == dOut.tableId()).toList();
        List<RegistryRow> inRows = registry.stream().filter(r -> r.tableId() == dIn.tableId()).toList();
        List<RegistryRow> liveRows = registry.stream().filter(r -> r.tableId() == live.tableId()).toList();
        assertThat(outRows).isNotEmpty();
        assertThat(inRows).isNotEmpty();
        for (RegistryRow r : outRows) {
            assertThat(a.rowCount(r.tableName())).as("d_out was flushed before its drop").isZero();
        }
        assertThat(inRows.stream().mapToLong(r -> {
            try {
                return a.rowCount(r.tableName());
            } catch (java.sql.SQLException ex) {
                throw new IllegalStateException(ex);
            }
        }).sum()).as("d_in's rows are inlined").isEqualTo(2);

        // all snapshots retained: both dropped tables reachable, nothing to drop
        assertThat(a.janitorDryRun().count("orphan_rows")).isZero();

        // ---- twin A: DuckLake's own expire sets the boundary ------------------------------------------------
        String below = LongStream.range(0, e).mapToObj(Long::toString).collect(Collectors.joining(", "));
        a.run(RealDuckLake.program().attach(a.attach())
                .named("expire", "CALL ducklake_expire_snapshots('lake', versions => [" + below + "])"));
        assertThat(a.snapshotBounds()[0]).isEqualTo(e);
        // DuckLake 1.5.5 removes the just-outside table's inlined tables itself and keeps the just-inside ones
        assertThat(a.inlinedRelations()).doesNotContainAnyElementsOf(names(outRows)).containsAll(names(inRows))
                .containsAll(names(liveRows));
        List<RegistryRow> registryAfterDuckLake = a.registry();
        JanitorRun dryA = a.janitorDryRun();
        assertThat(dryA.count("orphan_rows")).isZero();
        JanitorRun execA = a.janitorExecute();
        assertThat(execA.count("dropped")).isZero();
        assertThat(execA.count("rows_deleted")).isZero();
        assertThat(a.registry()).isEqualTo(registryAfterDuckLake);

        // ---- twin B: the same snapshots removed the Postgres-native way --------------------------------------
        assertThat(b.pgNativeExpireBelow(e)).isEqualTo((int) e);
        assertThat(b.snapshotIds()).isEqualTo(a.snapshotIds());
        assertThat(b.inlinedRelations()).containsAll(names(outRows));
        JanitorRun dryB = b.janitorDryRun();
        assertThat(dryB.count("orphan_rows")).as("just outside: d_out only").isEqualTo(outRows.size());
        assertThat(dryB.count("orphan_nonempty")).isZero();
        JanitorRun execB = b.janitorExecute();
        assertThat(execB.count("dropped")).isEqualTo(outRows.size());
        assertThat(execB.count("remaining")).isZero();
        // the janitor removed exactly what DuckLake itself removed in twin A
        assertThat(b.registry()).isEqualTo(registryAfterDuckLake);
        assertThat(b.inlinedRelations()).isEqualTo(a.inlinedRelations());

        // ---- time travel to every retained snapshot still reads, in both twins, with the same results -------
        RealDuckLake.Result ttA = a.run(timeTravel(a, tables));
        RealDuckLake.Result ttB = b.run(timeTravel(b, tables));
        assertThat(ttB.namedRows()).isEqualTo(ttA.namedRows()).isNotEmpty();
        assertThat(ttA.rows("at_" + e + "_d_in")).containsExactly(List.of("20", "in"), List.of("21", "in2"));
        assertThat(ttB.rows("at_" + e + "_d_in")).containsExactly(List.of("20", "in"), List.of("21", "in2"));
        assertThat(ttB.rows("at_" + (e + 3) + "_keep_live")).hasSize(4);
        // snapshot E - 1 is gone: reading it fails in DuckLake (the janitor relied on that boundary)
        b.run(RealDuckLake.program().attach(b.attach())
                .expectError("expired", "SELECT * FROM lake.keep_live AT (VERSION => " + (e - 1) + ")"));
    }

    private static List<String> names(List<RegistryRow> rows) {
        return rows.stream().map(RegistryRow::tableName).toList();
    }
}
