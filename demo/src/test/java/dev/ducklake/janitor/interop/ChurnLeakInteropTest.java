package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.interop.InteropCatalog.JanitorRun;
import dev.ducklake.janitor.interop.InteropCatalog.RegistryRow;
import dev.ducklake.janitor.interop.InteropCatalog.TableRow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenarios 1 and 2 of the interop suite: real DuckLake churns a catalog the way sync jobs do (small
 * inlined batches, ALTERs, DROP + CREATE of the same names, a periodic flush), the retained snapshot window
 * moves, the janitor runs, and afterwards a fresh DuckLake session still reads, writes and maintains the
 * catalog.
 */
class ChurnLeakInteropTest {

    private static final int ROUNDS = 4;
    private static final List<String> LIVE = List.of("customers", "events");
    private static final List<String> SYNC = List.of("sync_orders", "sync_items");

    private InteropCatalog lake;

    @AfterEach
    void cleanup() {
        if (lake != null) {
            lake.deleteDataDir();
        }
    }

    @Test
    void janitorDropsExactlyTheLeakedInlinedTablesAndDuckLakeKeepsWorking() throws Exception {
        lake = InteropCatalog.fresh("il_churn");

        // ---- 1. DuckLake churns the catalog ------------------------------------------------------------
        RealDuckLake.Program churn = RealDuckLake.program()
                .attach(lake.attach().inliningRowLimit(1000))
                .sql("CREATE TABLE lake.customers(id INTEGER, name VARCHAR, balance DOUBLE)",
                        "CREATE TABLE lake.events(id BIGINT, kind VARCHAR, happened_at TIMESTAMP)");
        int nextId = 1;
        for (int r = 0; r < ROUNDS; r++) {
            churn.query("round_start_" + r, "SELECT max(snapshot_id) FROM lake.snapshots()");
            churn.sql("INSERT INTO lake.customers(id, name, balance) VALUES (" + nextId + ", 'c" + nextId + "', " + (nextId * 1.5) + ")"
                            ,
                    "INSERT INTO lake.events VALUES (" + nextId + ", 'k''" + r + "', TIMESTAMP '2026-01-0" + (r + 1)
                            + " 10:00:00'), (" + (nextId + 1) + ", NULL, NULL)");
            nextId += 2;
            if (r == 1) {
                // new schema version of a live table: its older inlined table is superseded but still holds rows
                churn.sql("ALTER TABLE lake.customers ADD COLUMN tier INTEGER",
                        "INSERT INTO lake.customers VALUES (" + nextId + ", 'after alter', 0.25, 3)");
                nextId++;
            }
            for (String t : SYNC) {
                churn.sql("DROP TABLE IF EXISTS lake." + t,
                        "CREATE TABLE lake." + t + "(id INTEGER, v VARCHAR)",
                        "INSERT INTO lake." + t + " VALUES (" + r + ", 'round " + r + "'), (" + (r + 100) + ", 'x')",
                        "ALTER TABLE lake." + t + " ADD COLUMN qty INTEGER",
                        "INSERT INTO lake." + t + " VALUES (" + (r + 200) + ", 'y', " + r + ")");
            }
            if (r % 2 == 0) {
                // the sync job's periodic flush (CHECKPOINT's first step): inlined rows go to Parquet, emptied
                // superseded inlined tables are dropped by DuckLake, the newest stays (empty)
                churn.sql("CALL ducklake_flush_inlined_data('lake')");
            }
        }
        RealDuckLake.Result churnResult = lake.run(churn);

        List<RegistryRow> registryBefore = lake.registry();
        List<TableRow> tables = lake.tables();
        assertThat(lake.formatVersion()).isEqualTo("1.0");
        Set<Long> liveIds = tables.stream().filter(t -> t.endSnapshot() == null).map(TableRow::tableId)
                .collect(Collectors.toSet());
        assertThat(tables.stream().filter(t -> t.endSnapshot() == null).map(TableRow::tableName))
                .containsExactlyInAnyOrder("customers", "events", "sync_orders", "sync_items");
        // every dropped sync table left its inlined tables behind (DuckLake keeps them for time travel)
        Set<Long> droppedIds = tables.stream().filter(t -> t.endSnapshot() != null).map(TableRow::tableId)
                .collect(Collectors.toSet());
        assertThat(droppedIds).hasSize(SYNC.size() * (ROUNDS - 1));
        assertThat(registryBefore.stream().map(RegistryRow::tableId).collect(Collectors.toSet())).containsAll(droppedIds);
        assertThat(lake.inlinedRelations()).containsAll(
                registryBefore.stream().map(RegistryRow::tableName).toList());

        // ---- 2. all snapshots retained: nothing is an orphan (time travel still needs every table) --------
        JanitorRun dryAll = lake.janitorDryRun();
        assertThat(dryAll.json().path("dry_run").asBoolean()).isTrue();
        assertThat(dryAll.count("registry_rows")).isEqualTo(registryBefore.size());
        assertThat(dryAll.count("orphan_rows")).isZero();
        assertThat(lake.registry()).isEqualTo(registryBefore);

        // ---- 3. the retained window moves past the first ROUNDS-1 rounds (Postgres-native expiry) ---------
        // round_start_r is the snapshot before round r; the first statement of the last round made
        // round_start + 1, which becomes the oldest retained snapshot.
        long firstRetained = churnResult.scalar("round_start_" + (ROUNDS - 1)) + 1;
        assertThat(lake.pgNativeExpireBelow(firstRetained)).isPositive();

        // expected orphans, from DuckLake's own rows: table_ids none of whose rows is visible at or after
        // firstRetained (all closed with end_snapshot <= firstRetained), and registry rows without a table row
        Map<Long, List<TableRow>> byId = tables.stream().collect(Collectors.groupingBy(TableRow::tableId));
        Set<Long> orphanIds = new HashSet<>();
        for (RegistryRow rr : registryBefore) {
            List<TableRow> rows = byId.getOrDefault(rr.tableId(), List.of());
            boolean visible = rows.stream().anyMatch(t -> t.endSnapshot() == null || t.endSnapshot() > firstRetained);
            if (!visible) {
                orphanIds.add(rr.tableId());
            }
        }
        List<RegistryRow> orphanRows = registryBefore.stream().filter(r -> orphanIds.contains(r.tableId())).toList();
        Map<String, Long> inlinedCounts = new LinkedHashMap<>();
        for (RegistryRow rr : registryBefore) {
            inlinedCounts.put(rr.tableName(), lake.rowCount(rr.tableName()));
        }
        List<RegistryRow> orphanEmpty = orphanRows.stream().filter(r -> inlinedCounts.get(r.tableName()) == 0).toList();
        List<RegistryRow> orphanNonEmpty = orphanRows.stream().filter(r -> inlinedCounts.get(r.tableName()) > 0).toList();
        // the scenario is meaningful: dropped tables of the expired rounds, flushed (empty) and not (rows)
        assertThat(orphanIds).isNotEmpty().doesNotContainAnyElementsOf(liveIds);
        assertThat(orphanEmpty).as("flushed-then-dropped tables leak empty inlined tables").isNotEmpty();
        assertThat(orphanNonEmpty).as("dropped-before-flush tables leak inlined tables with rows").isNotEmpty();
        // tables dropped in the last round stay reachable (still in the retained window)
        Set<Long> droppedInLastRound = tables.stream()
                .filter(t -> t.endSnapshot() != null && t.endSnapshot() > firstRetained).map(TableRow::tableId)
                .collect(Collectors.toSet());
        assertThat(droppedInLastRound).hasSize(SYNC.size()).doesNotContainAnyElementsOf(orphanIds);

        // what DuckLake reads before the janitor: every live table, and every table at every retained snapshot
        RealDuckLake.Program reads = readEverything(tables);
        RealDuckLake.Result readsBefore = lake.run(reads);

        System.out.printf("churn: %d registry rows, %d orphan rows (%d empty, %d non-empty), first retained snapshot %d%n",
                registryBefore.size(), orphanRows.size(), orphanEmpty.size(), orphanNonEmpty.size(), firstRetained);

        // ---- 4. janitor dry run counts exactly the leaked tables and changes nothing ----------------------
        Set<String> relationsBefore = lake.inlinedRelations();
        JanitorRun dry = lake.janitorDryRun();
        assertThat(dry.count("registry_rows")).isEqualTo(registryBefore.size());
        assertThat(dry.count("orphan_rows")).isEqualTo(orphanRows.size());
        assertThat(dry.count("orphan_tables_present")).isEqualTo(orphanRows.size());
        assertThat(dry.count("orphan_nonempty")).isEqualTo(orphanNonEmpty.size());
        assertThat(dry.count("kept_by_name_guard")).isZero();
        assertThat(lake.registry()).isEqualTo(registryBefore);
        assertThat(lake.inlinedRelations()).isEqualTo(relationsBefore);

        // ---- 5. execute: the empty leaked tables go, the non-empty ones are kept and reported ------------
        JanitorRun exec = lake.janitorExecute();
        assertThat(exec.json().path("dry_run").asBoolean()).isFalse();
        assertThat(exec.count("dropped")).isEqualTo(orphanEmpty.size());
        assertThat(exec.count("rows_deleted")).isEqualTo(orphanEmpty.size());
        assertThat(exec.count("missing_tables")).isZero();
        assertThat(exec.count("skipped_nonempty")).isEqualTo(orphanNonEmpty.size());
        assertThat(exec.count("remaining")).isEqualTo(orphanNonEmpty.size());
        List<String> reportedNonEmpty = new ArrayList<>();
        exec.json().path("non_empty_tables").forEach(n -> reportedNonEmpty.add(n.path("table_name").asText()));
        assertThat(reportedNonEmpty).containsExactlyInAnyOrderElementsOf(
                orphanNonEmpty.stream().map(RegistryRow::tableName).toList());

        List<RegistryRow> expectedRegistry = registryBefore.stream().filter(r -> !orphanEmpty.contains(r)).toList();
        assertThat(lake.registry()).isEqualTo(expectedRegistry);
        Set<String> expectedRelations = new java.util.TreeSet<>(relationsBefore);
        orphanEmpty.forEach(r -> expectedRelations.remove(r.tableName()));
        assertThat(lake.inlinedRelations()).isEqualTo(expectedRelations);
        // nothing of a reachable table was touched: same tables, same rows
        for (RegistryRow rr : expectedRegistry) {
            assertThat(lake.rowCount(rr.tableName())).as(rr.tableName()).isEqualTo(inlinedCounts.get(rr.tableName()));
        }
        assertThat(lake.tables()).isEqualTo(tables);

        // a second run finds nothing more to drop
        JanitorRun again = lake.janitorExecute();
        assertThat(again.count("dropped")).isZero();
        assertThat(again.count("orphan_rows")).isEqualTo(orphanNonEmpty.size());

        // ... and with --include-nonempty the leaked tables that still hold rows go too (issue 6): every leak is gone
        JanitorRun all = lake.janitorExecute("--include-nonempty");
        assertThat(all.count("dropped")).isEqualTo(orphanNonEmpty.size());
        assertThat(all.count("remaining")).isZero();
        List<RegistryRow> reachableRegistry = registryBefore.stream()
                .filter(r -> !orphanEmpty.contains(r) && !orphanNonEmpty.contains(r)).toList();
        assertThat(lake.registry()).isEqualTo(reachableRegistry);
        for (RegistryRow rr : reachableRegistry) {
            assertThat(lake.rowCount(rr.tableName())).as(rr.tableName()).isEqualTo(inlinedCounts.get(rr.tableName()));
        }
        assertThat(lake.tables()).isEqualTo(tables);

        // ---- scenario 2: a fresh DuckLake session reads exactly what it read before ---------------------
        RealDuckLake.Result readsAfter = lake.run(reads);
        for (com.fasterxml.jackson.databind.JsonNode step : readsBefore.doc().path("results")) {
            String name = step.path("name").asText(null);
            if (name != null) {
                assertThat(readsAfter.step(name).path("rows")).as(name).isEqualTo(step.path("rows"));
            }
        }

        // ... and keeps working: inlined inserts, update, delete, alter, then DuckLake's own maintenance
        List<List<String>> customersBefore = readsBefore.rows("now_customers");
        lake.run(RealDuckLake.program()
                .attach(lake.attach())
                .sql("INSERT INTO lake.customers VALUES (9001, 'fresh', 1.0, 1), (9002, 'fresh2', 2.0, 2)"));
        long customersId = tables.stream().filter(t -> t.endSnapshot() == null && t.tableName().equals("customers"))
                .findFirst().orElseThrow().tableId();
        RegistryRow newestCustomers = lake.registry().stream().filter(r -> r.tableId() == customersId)
                .max(java.util.Comparator.comparingLong(RegistryRow::schemaVersion)).orElseThrow();
        assertThat(lake.scalar("SELECT count(*) FROM " + lake.q(newestCustomers.tableName())
                + " WHERE id IN (9001, 9002) AND end_snapshot IS NULL"))
                .as("small inserts after the janitor still go to inlined storage").isEqualTo(2);

        RealDuckLake.Result use = lake.run(RealDuckLake.program()
                .attach(lake.attach())
                .sql("UPDATE lake.customers SET balance = 99.5 WHERE id = 9001",
                        "DELETE FROM lake.customers WHERE id = 1",
                        "ALTER TABLE lake.customers ADD COLUMN note VARCHAR",
                        "INSERT INTO lake.customers VALUES (9003, 'after alter 2', 3.0, 3, 'n')",
                        "INSERT INTO lake.sync_orders VALUES (777, 'after janitor', 7)")
                .query("customers_after_writes", "SELECT id, name, balance, tier, note FROM lake.customers ORDER BY id")
                .named("expire", "CALL ducklake_expire_snapshots('lake', older_than => now())")
                .named("flush", "CALL ducklake_flush_inlined_data('lake')")
                .named("merge", "CALL ducklake_merge_adjacent_files('lake')")
                .named("cleanup", "CALL ducklake_cleanup_old_files('lake', cleanup_all => true)")
                .named("checkpoint", "CHECKPOINT lake")
                .query("customers_after_maintenance", "SELECT id, name, balance, tier, note FROM lake.customers ORDER BY id")
                .query("sync_orders_after", "SELECT id, v, qty FROM lake.sync_orders ORDER BY id"));

        List<List<String>> expected = new ArrayList<>();
        for (List<String> row : customersBefore) {
            if (!row.get(0).equals("1")) {
                List<String> r = new ArrayList<>(row);
                r.add("NULL");
                expected.add(r);
            }
        }
        expected.add(List.of("9001", "fresh", "99.5", "1", "NULL"));
        expected.add(List.of("9002", "fresh2", "2.0", "2", "NULL"));
        expected.add(List.of("9003", "after alter 2", "3.0", "3", "n"));
        assertThat(use.rows("customers_after_writes")).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(use.rows("customers_after_maintenance")).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(use.rows("sync_orders_after")).contains(List.of("777", "after janitor", "7"));

        // after DuckLake's own expire of everything but the latest snapshot, the catalog is consistent:
        // every registered inlined table exists, and no orphan is left for the janitor
        for (RegistryRow rr : lake.registry()) {
            assertThat(lake.inlinedRelations()).contains(rr.tableName());
        }
        assertThat(lake.janitorDryRun().count("orphan_rows")).isZero();
    }

    /**
     * A program reading the full contents of every live table, and of every table visible at every retained
     * snapshot (time travel), each into a named step.
     */
    private RealDuckLake.Program readEverything(List<TableRow> tables) throws Exception {
        RealDuckLake.Program p = RealDuckLake.program().attach(lake.attach());
        for (TableRow t : tables) {
            if (t.endSnapshot() == null) {
                p.query("now_" + t.tableName(), "SELECT * FROM lake." + t.tableName() + " ORDER BY ALL");
            }
        }
        for (long s : lake.snapshotIds()) {
            for (TableRow t : tables) {
                boolean visible = t.beginSnapshot() <= s && (t.endSnapshot() == null || s < t.endSnapshot());
                if (visible) {
                    p.query("at_" + s + "_" + t.tableName() + "_" + t.tableId(),
                            "SELECT * FROM lake." + t.tableName() + " AT (VERSION => " + s + ") ORDER BY ALL");
                }
            }
        }
        return p;
    }
}
