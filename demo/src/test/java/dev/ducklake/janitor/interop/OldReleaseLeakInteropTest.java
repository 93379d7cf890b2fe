package dev.ducklake.janitor.interop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.interop.InteropCatalog.JanitorRun;
import dev.ducklake.janitor.interop.InteropCatalog.RegistryRow;
import dev.ducklake.janitor.interop.InteropCatalog.TableRow;
import dev.ducklake.janitor.interop.LeakCensus.Leak;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 17: real leaks written by real, LEAKING DuckLake releases (1.5.2, format 1.0; 1.4.4, format 0.3), each
 * from its own pinned venv ({@link RealDuckLake#release}).
 *
 * <p>Each release churns two identical catalogs (DROP + re-CREATE with rows inlined before the DROP, Parquet
 * inserts, inlined deletes on 1.5.x, an ALTER, a flush every other round) and expires them with its own
 * {@code ducklake_expire_snapshots}. On the subject catalog the janitor's dry run must count exactly what
 * leaked ({@link LeakCensus}: counted from pg_class against the reachable table ids, not from the janitor),
 * the default execute run and then {@code --include-nonempty --include-unregistered} must leave nothing
 * unreachable and every other table of the schema (DuckLake's catalog tables, reachable inlined tables)
 * byte-identical. Then the same release and afterwards DuckLake 1.5.5 (migrating) read, write and run their
 * maintenance on both catalogs; the subject must behave exactly like the control catalog the janitor never
 * touched (same rows, and where DuckLake fails, the same failure).
 */
class OldReleaseLeakInteropTest {

    /** Rounds of churn; the tables dropped before the last round leak. Modest: 2 cores, a few minutes. */
    private static final int ROUNDS = 6;
    private static final List<String> SYNC = List.of("sync_a", "sync_b");
    private static final List<String> LIVE = List.of("customers", "facts");

    private final List<InteropCatalog> lakes = new ArrayList<>();

    @AfterEach
    void cleanup() {
        lakes.forEach(InteropCatalog::deleteDataDir);
    }

    @ParameterizedTest(name = "DuckLake {0} (format {1})")
    @CsvSource({"1.5.2, 1.0, true, ''", "1.4.4, 0.3, false, 'w_insert w_update w_insert_after_maintenance'"})
    void janitorClearsARealLeakAndBothReleasesKeepWorking(String release, String format, boolean inlinedDeletes,
                                                          String upgradeFailures) throws Exception {
        long t0 = System.nanoTime();
        RealDuckLake old = RealDuckLake.release(release);
        RealDuckLake current = RealDuckLake.require();
        String tag = release.replace('.', '_');
        InteropCatalog lake = track(InteropCatalog.fresh("il_old_" + tag, old));
        InteropCatalog control = track(InteropCatalog.fresh("il_oldctl_" + tag, old));

        // ---- 1. the old release churns both catalogs identically, then expires with its own function -------
        RealDuckLake.Running controlChurn = old.start(churn(control));
        RealDuckLake.Result churned = lake.run(churn(lake));
        RealDuckLake.Result controlChurned = controlChurn.await(300).assertOk();
        assertThat(churned.doc().path("duckdb_version").asText()).isEqualTo(release);
        assertThat(lake.formatVersion()).isEqualTo(format);
        long firstRetained = churned.scalar("round_start_" + (ROUNDS - 1)) + 1;
        assertThat(controlChurned.scalar("round_start_" + (ROUNDS - 1)) + 1).isEqualTo(firstRetained);
        lake.run(expireBelow(lake, firstRetained));
        control.run(expireBelow(control, firstRetained));
        assertThat(lake.snapshotBounds()[0]).as("the release's own expiry moved the window").isEqualTo(firstRetained);

        LeakCensus leak = LeakCensus.take(lake);
        LeakCensus controlLeak = LeakCensus.take(control);
        String summary = leak.summary();
        System.out.println("OLDREL DuckLake " + release + " (format " + format + "): " + summary);
        assertThat(controlLeak.all()).as("the control catalog leaked the same").isEqualTo(leak.all());
        // the release leaks: registered inlined tables of dropped tables, some of them holding rows ...
        assertThat(leak.registered()).isNotEmpty();
        assertThat(LeakCensus.nonEmpty(leak.registered())).isPositive().isLessThan(leak.registered().size());
        // ... from 1.5.0 on also the inlined deletion tables of dropped tables (format 0.3 has none)
        if (inlinedDeletes) {
            assertThat(leak.inlinedDelete()).isNotEmpty();
        } else {
            assertThat(leak.inlinedDelete()).isEmpty();
            assertThat(lake.inlinedRelations()).noneMatch(n -> n.startsWith("ducklake_inlined_delete_"));
        }
        Set<Long> leakedIds = leak.all().stream().map(Leak::tableId).collect(Collectors.toSet());
        List<TableRow> tables = lake.tables();
        assertThat(tables.stream().filter(t -> t.endSnapshot() == null).map(TableRow::tableName))
                .containsExactlyInAnyOrder("customers", "facts", "sync_a", "sync_b");
        assertThat(leakedIds).doesNotContainAnyElementsOf(leak.reachableIds());
        // the tables dropped in the last round are still reachable: time travel needs them, nothing of theirs leaks
        assertThat(tables.stream().filter(t -> t.endSnapshot() != null).map(TableRow::tableId))
                .hasSize(SYNC.size()).allMatch(leak.reachableIds()::contains);

        RealDuckLake.Program reads = readEverything(lake, tables);
        RealDuckLake.Result readsBefore = lake.run(reads);

        // ---- 2. dry runs count exactly the leak and change nothing -------------------------------------------
        Map<String, String> contentsBefore = LeakCensus.contents(lake);
        List<RegistryRow> registryBefore = lake.registry();
        JanitorRun dry = lake.janitorDryRun();
        assertThat(dry.json().path("format_version").asText()).isEqualTo(format);
        assertThat(dry.count("orphan_rows")).isEqualTo(leak.registered().size());
        assertThat(dry.count("orphan_tables_present")).isEqualTo(leak.registered().size());
        assertThat(dry.count("orphan_nonempty")).isEqualTo(LeakCensus.nonEmpty(leak.registered()));
        assertThat(dry.count("unregistered_orphans")).isEqualTo(leak.unregistered().size());
        assertThat(dry.count("inlined_delete_orphans")).isEqualTo(leak.inlinedDelete().size());
        assertThat(dry.count("inlined_delete_live")).isEqualTo(leak.liveInlinedDelete().size());
        assertThat(dry.count("unregistered_nonempty"))
                .isEqualTo(LeakCensus.nonEmpty(leak.unregistered()) + LeakCensus.nonEmpty(leak.inlinedDelete()));
        assertThat(dry.count("kept_by_name_guard")).isZero();
        assertThat(dry.count("unregistered_anomalies")).isZero();
        long emptyRegistered = leak.registered().size() - LeakCensus.nonEmpty(leak.registered());
        assertThat(dry.count("would_drop")).isEqualTo(emptyRegistered);
        assertThat(nonEmptyListed(dry)).as("the dry run lists every non-empty leaked table with its rows")
                .isEqualTo(nonEmptyOf(leak.all()));
        JanitorRun dryAll = lake.janitor("--dry-run", "--include-nonempty", "--include-unregistered");
        assertThat(dryAll.exitCode()).isZero();
        assertThat(dryAll.count("would_drop")).isEqualTo(leak.all().size());
        assertThat(LeakCensus.contents(lake)).isEqualTo(contentsBefore);

        // ---- 3. default execute: only the empty registered leaks go -------------------------------------------
        List<Leak> emptyRegisteredLeaks = leak.registered().stream().filter(l -> l.rows() == 0).toList();
        JanitorRun def = lake.janitorExecute();
        assertThat(def.count("dropped")).isEqualTo(emptyRegistered);
        assertThat(def.count("rows_deleted")).isEqualTo(emptyRegistered);
        assertThat(def.count("dropped_unregistered")).isZero();
        assertThat(def.count("dropped_inlined_delete")).isZero();
        assertThat(def.count("dropped_nonempty")).isZero();
        assertThat(def.count("remaining")).isEqualTo(LeakCensus.nonEmpty(leak.registered()));
        assertThat(def.count("remaining_unregistered")).isEqualTo(leak.unregistered().size() + leak.inlinedDelete().size());
        assertThat(LeakCensus.without(LeakCensus.contents(lake), List.of()))
                .as("every other table of the schema, and its rows, unchanged")
                .isEqualTo(LeakCensus.without(contentsBefore, emptyRegisteredLeaks));
        assertThat(lake.registry()).isEqualTo(registryWithout(registryBefore, emptyRegisteredLeaks));

        // ---- 4. --include-nonempty --include-unregistered: the rest of the leak goes, nothing else -----------
        List<Leak> rest = leak.all().stream().filter(l -> !emptyRegisteredLeaks.contains(l)).toList();
        JanitorRun all = lake.janitorExecute("--include-nonempty", "--include-unregistered");
        long droppedAll = all.count("dropped") + all.count("dropped_unregistered") + all.count("dropped_inlined_delete");
        assertThat(all.count("dropped")).isEqualTo(LeakCensus.nonEmpty(leak.registered()));
        assertThat(all.count("dropped_unregistered")).isEqualTo(leak.unregistered().size());
        assertThat(all.count("dropped_inlined_delete")).isEqualTo(leak.inlinedDelete().size());
        assertThat(all.count("dropped_nonempty")).isEqualTo(LeakCensus.nonEmpty(rest));
        assertThat(all.count("inlined_rows_dropped")).isEqualTo(LeakCensus.rows(rest));
        assertThat(all.count("remaining")).isZero();
        assertThat(all.count("remaining_unregistered")).isZero();
        assertThat(LeakCensus.without(LeakCensus.contents(lake), List.of()))
                .as("every other table of the schema, and its rows, unchanged")
                .isEqualTo(LeakCensus.without(contentsBefore, leak.all()));
        assertThat(lake.registry()).as("every registry row of a reachable table unchanged")
                .isEqualTo(registryWithout(registryBefore, leak.all()));
        assertThat(LeakCensus.take(lake).all()).as("nothing unreachable left").isEmpty();
        assertThat(lake.tables()).isEqualTo(tables);

        String numbers = String.format("DuckLake %s (format %s): %s; default run dropped %d; then "
                        + "--include-nonempty --include-unregistered dropped %d (%d registered, %d unregistered, "
                        + "%d inlined-delete; %d non-empty, %d rows)",
                release, format, summary, def.count("dropped"), droppedAll, all.count("dropped"),
                all.count("dropped_unregistered"), all.count("dropped_inlined_delete"), all.count("dropped_nonempty"),
                all.count("inlined_rows_dropped"));

        // ---- 5. the same release reads everything as before, writes and maintains: exactly like the control --
        RealDuckLake.Result readsAfter = lake.run(reads);
        assertThat(readsAfter.namedRows()).isEqualTo(readsBefore.namedRows());
        assertThat(control.run(readEverything(control, tables)).namedRows()).isEqualTo(readsBefore.namedRows());

        RealDuckLake.Result oldUse = old.run(useAndMaintain(lake, false));
        RealDuckLake.Result oldUseControl = old.run(useAndMaintain(control, false));
        assertSameOutcome(oldUse, lake, oldUseControl, control);
        assertThat(oldUse.step("reads_live_customers").path("ok").asBoolean()).isTrue();
        assertThat(oldUse.rows("customers_after_writes")).contains(List.of("500", "after", "NULL"),
                List.of("502", "after alter", "n"));
        assertThat(oldUse.rows("customers_final")).contains(List.of("503", "post", "NULL"));
        assertThat(failedSteps(oldUseControl)).as("steps the release fails on its untouched control").isEmpty();
        LeakCensus leakAgain = LeakCensus.take(lake);
        LeakCensus controlAgain = LeakCensus.take(control);
        // the control still holds the first leak, plus what the release's own expiry leaked again just now
        assertThat(names(controlAgain.all())).containsAll(names(leak.all())).containsAll(names(leakAgain.all()));
        assertThat(controlAgain.all().size()).isEqualTo(leak.all().size() + leakAgain.all().size());

        // ---- 6. DuckLake 1.5.5 attaches (migrating), reads everything, writes, maintains: like the control -----
        System.out.println("OLDREL " + release + " before 1.5.5, inlined tables of customers (table 1): registry "
                + control.registry().stream().filter(r -> r.tableId() == 1).toList() + ", pg_class "
                + control.inlinedRelations().stream().filter(n -> n.startsWith("ducklake_inlined_data_1_")).toList());
        RealDuckLake.Result cur = current.run(useAndMaintain(lake, true));
        RealDuckLake.Result curControl = current.run(useAndMaintain(control, true));
        assertSameOutcome(cur, lake, curControl, control);
        assertThat(cur.step("attach").path("ok").asBoolean()).as("1.5.5 attaches: " + cur.step("attach")).isTrue();
        assertThat(lake.formatVersion()).isEqualTo("1.0");
        assertThat(cur.rows("reads_live_customers")).isEqualTo(oldUse.rows("customers_final"));
        assertThat(cur.rows("reads_live_fresh")).containsExactly(List.of("1"));
        // what DuckLake 1.5.5 itself gets wrong on this migrated catalog, janitor or not (same on the control)
        assertThat(failedSteps(curControl)).as("steps DuckLake 1.5.5 fails on the untouched control")
                .isEqualTo(upgradeFailures.isBlank() ? List.of() : List.of(upgradeFailures.split(" ")));
        if (!upgradeFailures.contains("w_insert")) {
            assertThat(cur.rows("customers_after_writes")).contains(List.of("600", "v155", "NULL"));
        }
        // upgrading does not heal an old leak: after 1.5.5's own maintenance the control still holds every leaked
        // table with rows and every leaked deletion table; 1.5.5 removes only empty superseded inlined-data
        // tables. The janitor's catalog holds none of the first leak.
        LeakCensus controlAfterUpgrade = LeakCensus.take(control);
        Set<String> healedBy155 = names(leak.all());
        healedBy155.removeAll(names(controlAfterUpgrade.all()));
        assertThat(names(controlAfterUpgrade.all())).as("1.5.5 maintenance leaves the old leak")
                .containsAll(nonEmptyOf(leak.all()).keySet()).containsAll(names(leak.inlinedDelete()));
        assertThat(healedBy155).isSubsetOf(leak.registered().stream().filter(l -> l.rows() == 0).map(Leak::name).toList());
        assertThat(names(LeakCensus.take(lake).all())).doesNotContainAnyElementsOf(names(leak.all()));

        JanitorRun controlDry = control.janitorDryRun();
        numbers += String.format("; after 1.5.5's own maintenance the untouched control still held %d of the %d "
                        + "tables first leaked (1.5.5 removed %s), %d leaked tables in all (%d with rows), its default "
                        + "run would drop %d", leak.all().size() - healedBy155.size(), leak.all().size(), healedBy155,
                controlAfterUpgrade.all().size(), LeakCensus.nonEmpty(controlAfterUpgrade.all()),
                controlDry.count("would_drop"));
        numbers += String.format("; suite %.1f s", (System.nanoTime() - t0) / 1e9);
        System.out.println("OLDREL " + numbers);
        Path out = Path.of("target", "oldrel-leak-numbers.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, numbers + System.lineSeparator(), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private InteropCatalog track(InteropCatalog lake) {
        lakes.add(lake);
        return lake;
    }

    /** The churn of a sync job: live tables written each round, sync tables dropped and re-created. */
    private static RealDuckLake.Program churn(InteropCatalog lake) {
        RealDuckLake.Program p = RealDuckLake.program()
                .attach(lake.attach().inliningRowLimit(10))
                .sql("CREATE TABLE lake.customers(id INTEGER, name VARCHAR)",
                        "CREATE TABLE lake.facts(id INTEGER, v VARCHAR)",
                        "INSERT INTO lake.customers VALUES (1, 'c1'), (2, 'c2')",
                        "INSERT INTO lake.facts SELECT i, 'f' || i FROM range(40) t(i)");
        for (int r = 0; r < ROUNDS; r++) {
            p.query("round_start_" + r, "SELECT max(snapshot_id) FROM lake.snapshots()");
            // live tables first: the oldest retained snapshot is this insert, so the drops below stay reachable
            p.sql("INSERT INTO lake.customers VALUES (" + (10 + r) + ", 'c" + r + "')",
                    "DELETE FROM lake.facts WHERE id = " + (10 + r));
            for (String t : SYNC) {
                p.sql("DROP TABLE IF EXISTS lake." + t,
                        "CREATE TABLE lake." + t + "(id INTEGER, v VARCHAR)",
                        "INSERT INTO lake." + t + " SELECT i, 'p' || i FROM range(30) t(i)",
                        "INSERT INTO lake." + t + " VALUES (" + (1000 + r) + ", 'inlined " + r + "'), ("
                                + (2000 + r) + ", NULL)",
                        "DELETE FROM lake." + t + " WHERE id = " + r);
            }
            p.sql("ALTER TABLE lake.sync_a ADD COLUMN qty INTEGER",
                    "INSERT INTO lake.sync_a VALUES (" + (3000 + r) + ", 'after alter', " + r + ")");
            if (r % 2 == 0) {
                p.sql("CALL ducklake_flush_inlined_data('lake')");
            }
        }
        return p;
    }

    /** The release's own expiry of every snapshot below {@code firstRetained}. */
    private static RealDuckLake.Program expireBelow(InteropCatalog lake, long firstRetained) {
        String versions = LongStream.range(0, firstRetained).mapToObj(Long::toString).collect(Collectors.joining(", "));
        return RealDuckLake.program().attach(lake.attach())
                .sql("CALL ducklake_expire_snapshots('lake', versions => [" + versions + "])");
    }

    /** Every live table, and every table at every retained snapshot (time travel). */
    private static RealDuckLake.Program readEverything(InteropCatalog lake, List<TableRow> tables) throws Exception {
        RealDuckLake.Program p = RealDuckLake.program().attach(lake.attach());
        for (TableRow t : tables) {
            if (t.endSnapshot() == null) {
                p.query("now_" + t.tableName(), "SELECT * FROM lake." + t.tableName() + " ORDER BY ALL");
            }
        }
        for (long s : lake.snapshotIds()) {
            for (TableRow t : tables) {
                if (t.beginSnapshot() <= s && (t.endSnapshot() == null || s < t.endSnapshot())) {
                    p.query("at_" + s + "_" + t.tableName() + "_" + t.tableId(),
                            "SELECT * FROM lake." + t.tableName() + " AT (VERSION => " + s + ") ORDER BY ALL");
                }
            }
        }
        return p;
    }

    /**
     * Reads, writes and maintenance, each step named and run even when an earlier one failed (the caller
     * compares the outcome with the control's). {@code upgrade}: DuckLake 1.5.5 on the old catalog (migrating).
     */
    private static RealDuckLake.Program useAndMaintain(InteropCatalog lake, boolean upgrade) {
        RealDuckLake.Attach attach = lake.attach();
        if (upgrade) {
            attach.automaticMigration();
        }
        RealDuckLake.Program p = RealDuckLake.program().continueOnError();
        p.attachNamed("attach", attach);
        // the old release's own session below dropped sync_a and created fresh
        for (String t : upgrade ? List.of("customers", "facts", "sync_b", "fresh") : List.of("customers", "facts", "sync_a", "sync_b")) {
            p.query("reads_live_" + t, "SELECT * FROM lake." + t + " ORDER BY ALL");
        }
        if (upgrade) {
            p.named("w_insert", "INSERT INTO lake.customers VALUES (600, 'v155', NULL)")
                    .named("w_insert_parquet", "INSERT INTO lake.facts SELECT i, 'g' || i FROM range(200, 240) t(i)")
                    .named("w_delete", "DELETE FROM lake.facts WHERE id = 201")
                    .named("w_update", "UPDATE lake.customers SET name = 'upd155' WHERE id = 2")
                    .named("w_churn", "DROP TABLE lake.sync_b", "CREATE TABLE lake.sync_b(id INTEGER)",
                            "INSERT INTO lake.sync_b VALUES (1)");
        } else {
            p.named("w_insert", "INSERT INTO lake.customers VALUES (500, 'after'), (501, 'after2')")
                    .named("w_insert_parquet", "INSERT INTO lake.sync_b SELECT i, 'big' || i FROM range(100, 130) t(i)")
                    .named("w_delete", "DELETE FROM lake.facts WHERE id = 30")
                    .named("w_update", "UPDATE lake.customers SET name = 'upd' WHERE id = 1")
                    .named("w_alter", "ALTER TABLE lake.customers ADD COLUMN note VARCHAR",
                            "INSERT INTO lake.customers VALUES (502, 'after alter', 'n')")
                    .named("w_churn", "DROP TABLE lake.sync_a", "CREATE TABLE lake.fresh(id INTEGER)",
                            "INSERT INTO lake.fresh VALUES (1)");
        }
        p.query("customers_after_writes", "SELECT * FROM lake.customers ORDER BY ALL")
                .named("m_flush", "CALL ducklake_flush_inlined_data('lake')")
                .named("m_expire", "CALL ducklake_expire_snapshots('lake', older_than => now())")
                .named("m_merge", "CALL ducklake_merge_adjacent_files('lake')")
                .named("m_cleanup", "CALL ducklake_cleanup_old_files('lake', cleanup_all => true)")
                .named("m_checkpoint", "CHECKPOINT lake")
                .query("customers_after_maintenance", "SELECT * FROM lake.customers ORDER BY ALL")
                .named("w_insert_after_maintenance", "INSERT INTO lake.customers SELECT max(id) + 1, 'post', NULL FROM lake.customers")
                .query("customers_final", "SELECT * FROM lake.customers ORDER BY ALL")
                .query("facts_after_maintenance", "SELECT * FROM lake.facts ORDER BY ALL")
                .query("sync_b_after_maintenance", "SELECT * FROM lake.sync_b ORDER BY ALL");
        return p;
    }

    /**
     * The subject (janitor ran) and the control (never touched) gave the same outcome step by step: the same
     * rows, and the same failures (messages compared with the schema names and data paths made equal); the
     * maintenance steps by their row counts.
     */
    private static void assertSameOutcome(RealDuckLake.Result subject, InteropCatalog lake,
                                          RealDuckLake.Result control, InteropCatalog controlLake) {
        Map<String, String> s = outcome(subject, lake);
        Map<String, String> c = outcome(control, controlLake);
        assertThat(s).as("DuckLake on the janitor's catalog behaves exactly as on the untouched control").isEqualTo(c);
        List<String> failed = s.entrySet().stream().filter(e -> e.getValue().startsWith("ERROR"))
                .map(e -> e.getKey() + ": " + e.getValue()).toList();
        if (!failed.isEmpty()) {
            System.out.println("OLDREL DuckLake fails the same way on the control catalog: " + failed);
        }
    }

    private static Map<String, String> outcome(RealDuckLake.Result r, InteropCatalog lake) {
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode step : r.doc().path("results")) {
            String name = step.path("name").asText(null);
            if (name == null) {
                continue;
            }
            if (step.path("ok").asBoolean()) {
                // maintenance returns file names (random UUIDs): compared by count; everything else row by row
                out.put(name, name.startsWith("m_") ? "ok, " + step.path("rows").size() + " rows"
                        : step.path("rows").toString());
            } else {
                out.put(name, "ERROR " + step.path("error").asText().replace(lake.schema(), "<schema>")
                        .replace(lake.dataDir().toString(), "<data>"));
            }
        }
        return out;
    }

    private static List<RegistryRow> registryWithout(List<RegistryRow> registry, List<Leak> leaks) {
        Set<String> gone = names(leaks);
        return registry.stream().filter(r -> !gone.contains(r.tableName())).toList();
    }

    private static List<String> failedSteps(RealDuckLake.Result r) {
        List<String> out = new ArrayList<>();
        r.doc().path("results").forEach(step -> {
            if (!step.path("ok").asBoolean()) {
                out.add(step.path("name").asText());
            }
        });
        return out;
    }

    private static Map<String, Long> nonEmptyListed(JanitorRun run) {
        Map<String, Long> out = new HashMap<>();
        for (JsonNode n : run.json().path("non_empty_tables")) {
            out.put(n.path("table_name").asText(), n.path("rows").asLong());
        }
        return out;
    }

    private static Map<String, Long> nonEmptyOf(List<Leak> leaks) {
        Map<String, Long> out = new HashMap<>();
        leaks.stream().filter(l -> l.rows() > 0).forEach(l -> out.put(l.name(), l.rows()));
        return out;
    }

    private static Set<String> names(List<Leak> leaks) {
        return leaks.stream().map(Leak::name).collect(Collectors.toCollection(TreeSet::new));
    }
}
