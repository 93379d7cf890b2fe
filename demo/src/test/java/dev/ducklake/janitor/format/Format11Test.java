package dev.ducklake.janitor.format;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.catalog.InlinedTableName;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 22, item 1: format 1.1 (DuckDB 2.0). Every command works on a 1.1 catalog exactly as on the same catalog at 1.0
 * (CatalogBuilder writes both from the same steps; the JSON results must agree except for version, names and timings);
 * storage commands refuse a catalog with nested schemas (exit 5, saying why) while the catalog commands still work; a
 * {@code *_migrated} copy left by an interrupted migration is never dropped and {@code check} reports it.
 */
class Format11Test {

    private final TestPostgres pg = TestPostgres.get();

    @TempDir
    Path data;

    /** Same steps on both formats: live table with rows and a dead row, dropped+expired table, a leftover, a queued file. */
    private String build(FormatVersion v) throws Exception {
        return build(v, false);
    }

    private String build(FormatVersion v, boolean nested) throws Exception {
        String s = pg.freshSchema("f11_" + v.text().replaceAll("[^0-9a-z]", ""));
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, v).create();
            long live = b.createTable("live", 2);
            b.insertRows(live, 3);
            long dead = b.createTable("dead", 1);
            b.insertRows(dead, 1);
            long leftover = b.createTable("leftover", 1);
            b.dropTable(dead);
            b.dropTable(leftover);
            b.expireBefore(b.snapshot());
            Catalogs.unregister(c, s, leftover);
            String endCol = v.inlinedColumns().endSnapshot();
            Catalogs.exec(c, "UPDATE " + Sql.qualified(s, InlinedTableName.dataTable(live, 1)) + " SET " + Sql.ident(endCol)
                    + " = " + b.snapshot() + " WHERE " + Sql.ident(v.inlinedColumns().rowId()) + " = 0");
            if (nested) {
                b.createNestedSchema("europe", 0);
            }
        }
        return s;
    }

    private List<CliRun> everyCommand(String s) {
        String url = pg.url();
        String dp = data.toString() + "/";
        List<CliRun> out = new ArrayList<>();
        out.add(CliRun.run("check", "--catalog", url, "--metadata-schema", s, "--output", "json"));
        out.add(CliRun.run("drop-orphan-inline-tables", "--catalog", url, "--metadata-schema", s, "--dry-run", "--include-unregistered",
                "--output", "json"));
        out.add(CliRun.run("expire-snapshots", "--catalog", url, "--metadata-schema", s, "--dry-run", "--retain-last", "1",
                "--output", "json"));
        out.add(CliRun.run("purge-orphan-stats", "--catalog", url, "--metadata-schema", s, "--dry-run", "--output", "json"));
        out.add(CliRun.run("delete-orphan-files", "--catalog", url, "--metadata-schema", s, "--dry-run", "--data-path", dp,
                "--output", "json"));
        out.add(CliRun.run("cleanup-old-files", "--catalog", url, "--metadata-schema", s, "--dry-run", "--data-path", dp,
                "--output", "json"));
        out.add(CliRun.run("metrics", "--catalog", url, "--metadata-schema", s));
        return out;
    }

    private static final Pattern VOLATILE = Pattern.compile("(?i).*(version|elapsed|duration|_ms|seconds|time|catalog|schema|"
            + "started|finished|lock|warnings|cutoff).*");

    private static JsonNode normalized(JsonNode n) {
        if (n instanceof ObjectNode o) {
            for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
                if (VOLATILE.matcher(it.next()).matches()) {
                    it.remove();
                }
            }
            o.forEach(Format11Test::normalized);
        } else if (n != null && n.isArray()) {
            n.forEach(Format11Test::normalized);
        }
        return n;
    }

    @Test
    void everyCommandGivesTheSameResultOnFormat11AsOnFormat10() throws Exception {
        String s10 = build(FormatVersion.V1_0);
        String s11 = build(FormatVersion.V1_1);
        List<CliRun> r10 = everyCommand(s10);
        List<CliRun> r11 = everyCommand(s11);
        for (int i = 0; i < r10.size(); i++) {
            CliRun a = r10.get(i);
            CliRun b = r11.get(i);
            System.out.printf("command %d: exit 1.0=%d 1.1=%d%n", i, a.exitCode(), b.exitCode());
            assertThat(b.exitCode()).as("exit code of command %d on 1.1 (%s)", i, b).isEqualTo(a.exitCode());
            assertThat(b.exitCode()).as("not refused: %s", b).isNotIn(5, 9);
            if (a.out().trim().startsWith("{")) {
                assertThat(normalized(b.json())).as("result of command %d", i).isEqualTo(normalized(a.json()));
            } else {
                assertThat(metricSamples(b.out(), s11)).as("metrics").isEqualTo(metricSamples(a.out(), s10)).isNotEmpty();
            }
        }
        assertThat(r11.get(0).json().path("counts").path("dead_inlined_rows").asLong())
                .as("dead_inlined_rows reads 1.1's _ducklake_ columns").isEqualTo(1);
        assertThat(r11.get(1).json().toString()).contains("1.1");
    }

    /**
     * metric name + labels (schema replaced) -> value, without timings and version labels, and without what differs by
     * layout only: 1.1's one more catalog table (ducklake_view_column_tag) and the pg_attribute/relation sizes it brings.
     */
    private static Map<String, String> metricSamples(String exposition, String schema) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : exposition.split("\n")) {
            if (line.isBlank() || line.startsWith("#") || line.contains("time") || line.contains("seconds") || line.contains("duration")
                    || line.contains("version") || line.contains("_info") || line.contains("ducklake_view_column_tag")
                    || line.startsWith("ducklake_metadata_schema_")) {
                continue;
            }
            int sp = line.lastIndexOf(' ');
            out.put(line.substring(0, sp).replace(schema, "S"), line.substring(sp + 1));
        }
        return out;
    }

    @Test
    void storageCommandsRefuseNestedSchemasWhileCatalogCommandsWork() throws Exception {
        String s = build(FormatVersion.V1_1, true);
        List<CliRun> r = everyCommand(s);
        for (int i : new int[] {4, 5}) {
            assertThat(r.get(i).exitCode()).as("storage command %d: %s", i, r.get(i)).isEqualTo(5);
            assertThat(r.get(i).err()).contains("nested schema").contains("europe").contains("nothing was deleted");
        }
        for (int i : new int[] {0, 1, 2, 3, 6}) {
            assertThat(r.get(i).exitCode()).as("catalog command %d: %s", i, r.get(i)).isNotIn(5, 9);
        }
    }

    @Test
    void anOverlappingTenantWithNestedSchemasAlsoMakesTheStorageCommandsRefuse() throws Exception {
        String flat = build(FormatVersion.V1_1);
        String nested = build(FormatVersion.V1_1, true);
        CliRun r = CliRun.run("delete-orphan-files", "--catalog", pg.url(), "--metadata-schema", flat, "--dry-run", "--output", "json");
        assertThat(r.exitCode()).as("%s", r).isEqualTo(5);
        assertThat(r.err()).contains("nested schema").doesNotContain("schema '" + flat + "' has");
    }

    @Test
    void anInterruptedMigrationsCopyIsNeverDroppedAndCheckReportsIt() throws Exception {
        String s = build(FormatVersion.V1_1);
        String copyOfLive = InlinedTableName.dataTable(1, 1) + InlinedTableName.MIGRATED_SUFFIX;
        // the copy of a dropped table's inlined table, whose original the migration already dropped: its rows exist only here
        String copyOfGone = InlinedTableName.dataTable(2, 2) + InlinedTableName.MIGRATED_SUFFIX;
        try (Connection c = pg.connect()) {
            Catalogs.exec(c, "CREATE TABLE " + Sql.qualified(s, copyOfLive) + " AS SELECT * FROM "
                    + Sql.qualified(s, InlinedTableName.dataTable(1, 1)));
            Catalogs.exec(c, "CREATE TABLE " + Sql.qualified(s, copyOfGone) + " AS SELECT * FROM "
                    + Sql.qualified(s, InlinedTableName.dataTable(2, 2)));
            Catalogs.exec(c, "DROP TABLE " + Sql.qualified(s, InlinedTableName.dataTable(2, 2)));
        }
        CliRun check = CliRun.run("check", "--catalog", pg.url(), "--metadata-schema", s, "--output", "json");
        assertThat(check.json().path("counts").path("interrupted_migration_tables").asLong()).as("%s", check).isEqualTo(2);
        assertThat(check.out()).contains("'" + copyOfGone + "' original='missing'")
                .contains("'" + copyOfLive + "' original='present'");

        CliRun drop = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", s, "--yes",
                "--include-unregistered", "--include-nonempty", "--output", "json");
        CliRun expire = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", s, "--yes", "--retain-last", "1",
                "--output", "json");
        assertThat(drop.exitCode()).as("%s", drop).isZero();
        assertThat(expire.exitCode()).as("%s", expire).isZero();
        try (Connection c = pg.connect()) {
            assertThat(Catalogs.exists(c, s, copyOfLive)).isTrue();
            assertThat(Catalogs.exists(c, s, copyOfGone)).isTrue();
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + Sql.qualified(s, copyOfGone))).isEqualTo(1);
        }
    }
}
