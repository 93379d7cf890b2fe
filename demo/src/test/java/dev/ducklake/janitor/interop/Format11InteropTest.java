package dev.ducklake.janitor.interop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.cli.Main;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.Migrate11;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 22, item 1: the differential of expire-snapshots, check and drop-orphan-inline-tables on format 1.1 catalogs.
 * No DuckLake that writes 1.1 is installable here, so the 1.1 catalogs are real DuckLake 1.5.5 catalogs (the expire
 * differential's workload: Parquet, inlined rows, deletes, updates, drops, renames, partitions, merge, flush, macros)
 * migrated with DuckLake's own 1.0 → 1.1 steps ({@link Migrate11}). DuckLake 1.5.5 cannot open a 1.1 catalog, so the
 * comparison is a commuting square: the janitor on the migrated copy must end exactly (every relation, row for row) where
 * DuckLake's own function on the 1.0 copy ends once that is migrated the same way; check's and drop-orphan-inline-tables'
 * results on the 1.1 copy must equal their results on the 1.0 copy.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Format11InteropTest {

    private ExpireTwins twins;
    private Map<Long, String> times;

    @BeforeAll
    void writeCatalog() throws Exception {
        RealDuckLake.require();
        twins = new ExpireTwins("f11");
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(twins.source).inliningRowLimit(10))
                .sql(ExpireSnapshotsDifferentialInteropTest.WORKLOAD)).assertOk();
        times = twins.snapshotTimes(twins.source);
    }

    @AfterAll
    void dropDatabases() {
        if (twins != null) {
            twins.close();
        }
    }


    private List<String> migrate(String db) throws Exception {
        try (Connection c = twins.connect(db)) {
            List<String> renamed = Migrate11.apply(c, ExpireTwins.SCHEMA);
            assertThat(twins.rows(db, "SELECT value FROM " + Sql.qualified(ExpireTwins.SCHEMA, "ducklake_metadata")
                    + " WHERE key = 'version'")).containsExactly("1.1");
            return renamed;
        }
    }

    private static JsonNode cli(int expectedExit, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(args, new PrintWriter(out), new PrintWriter(err));
        assertThat(code).as("exit code of %s; stderr: %s; stdout: %s", args[0], err, out).isEqualTo(expectedExit);
        try {
            return RealDuckLake.JSON.readTree(out.toString());
        } catch (IOException e) {
            throw new AssertionError(out + "\n" + err, e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"older_than at snapshot 20", "older_than at the newest snapshot", "versions 1,4,9,15,22,30,34"})
    void expireOnTheMigratedCopyEndsWhereDuckLakesExpireOnTheOriginalEndsOnceMigrated(String criterion) throws Exception {
        long newest = times.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
        String duckLakeArgs;
        String[] ours;
        if (criterion.startsWith("versions")) {
            duckLakeArgs = "versions => [1, 4, 9, 15, 22, 30, 34]";
            ours = new String[] {"--versions", "1,4,9,15,22,30,34"};
        } else {
            String t = times.get(criterion.contains("20") ? 20L : newest);
            duckLakeArgs = "older_than => TIMESTAMPTZ '" + t + "'";
            ours = new String[] {"--older-than", t};
        }
        String a = twins.copy("a");
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(a))
                .named("expire", "CALL ducklake_expire_snapshots('lake', " + duckLakeArgs + ")")).assertOk();
        // DuckLake's expiry after 1.5.5 (#1391), as the janitor's, also deletes the inlined rows no retained snapshot sees
        long dead = twins.reclaimDeadInlinedRows(a);
        migrate(a);
        String b = twins.copy("b");
        List<String> renamed = migrate(b);
        assertThat(renamed).as("registered inlined tables renamed by the migration").isNotEmpty();
        JsonNode r = ExpireSnapshotsDifferentialInteropTest.janitor(twins.catalogArg(b), ours);
        System.out.printf("format 1.1 expire (%s): %s snapshots, %s tables removed, %s inlined tables dropped, %s data files%n",
                criterion, r.get("snapshots_expired"), r.get("tables_removed"), r.get("inlined_tables_dropped"), r.get("data_files_scheduled"));
        assertThat(r.get("snapshots_expired").asLong()).isPositive();
        if (criterion.contains("newest")) {
            assertThat(r.get("tables_removed").asLong()).isGreaterThanOrEqualTo(4);
            assertThat(r.get("inlined_tables_dropped").asLong()).isPositive();
        }
        assertThat(r.get("inlined_rows_deleted").asLong()).as("exactly the dead inlined rows").isEqualTo(dead);
        assertThat(twins.dump(b)).isEqualTo(twins.dump(a));
    }

    @Test
    void checkAndDropOrphanInlineTablesGiveOnTheMigratedCopyWhatTheyGiveOnTheOriginal() throws Exception {
        // the leak: a hand-written expiry of every snapshot but the newest (DuckLake's tables of dropped tables stay)
        String a = twins.copy("c10");
        String b = twins.copy("c11");
        for (String db : List.of(a, b)) {
            try (Connection c = twins.connect(db); Statement st = c.createStatement()) {
                st.execute("DELETE FROM " + Sql.qualified(ExpireTwins.SCHEMA, "ducklake_snapshot") + " WHERE snapshot_id < (SELECT max(snapshot_id) FROM "
                        + Sql.qualified(ExpireTwins.SCHEMA, "ducklake_snapshot") + ")");
            }
        }
        migrate(b);
        String s = ExpireTwins.SCHEMA;
        JsonNode check10 = cli(12, "check", "--catalog", twins.catalogArg(a), "--metadata-schema", s, "--output", "json");
        JsonNode check11 = cli(12, "check", "--catalog", twins.catalogArg(b), "--metadata-schema", s, "--output", "json");
        assertThat(check11.get("format_version").asText()).isEqualTo(FormatVersion.V1_1.text());
        assertThat(check11.get("counts")).as("check on 1.1 = check on 1.0").isEqualTo(check10.get("counts"));
        assertThat(check11.get("counts").get("unreachable_inlined_tables").asLong()).as("the leak is seen").isPositive();
        String[] drop = {"drop-orphan-inline-tables", "--metadata-schema", s, "--output", "json", "--yes", "--include-unregistered",
            "--include-nonempty"};
        JsonNode d10 = cli(0, with(drop, "--catalog", twins.catalogArg(a)));
        JsonNode d11 = cli(0, with(drop, "--catalog", twins.catalogArg(b)));
        for (String k : List.of("registry_rows", "orphan_rows", "dropped", "dropped_unregistered", "dropped_inlined_delete")) {
            assertThat(d11.path(k)).as(k).isEqualTo(d10.path(k));
        }
        assertThat(d11.get("dropped").asLong()).isPositive();
        migrate(a);
        assertThat(twins.dump(b)).as("drop on 1.1 = migrate after drop on 1.0").isEqualTo(twins.dump(a));
        JsonNode after = cli(12, "check", "--catalog", twins.catalogArg(b), "--metadata-schema", s, "--output", "json");
        assertThat(after.get("counts").get("unreachable_inlined_tables").asLong()).isZero();
    }

    private static String[] with(String[] base, String... more) {
        List<String> all = new ArrayList<>(List.of(base));
        all.addAll(List.of(more));
        return all.toArray(new String[0]);
    }
}
