package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.metrics.MaintenanceRunReporter;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.sql.Connection;
import java.util.List;
import java.util.Map;

import static dev.ducklake.janitor.testsupport.Catalogs.exec;
import static dev.ducklake.janitor.testsupport.Catalogs.inlinedDeleteTable;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an operator reads (issues 10 and 17): the confirmation names the count, non-empty orphans are one summary
 * line unless --verbose, lists are complete or say they are cut, skipped non-empty tables are counted by kind,
 * and the routine batch-size lowering is a --verbose detail.
 */
class OperatorOutputTest {

    private final TestPostgres pg = TestPostgres.get();

    @Test
    void theConfirmationSaysHowManyTablesWouldBeDropped() throws Exception {
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, pg.freshSchema("confirm_count"), 7);
        }
        long expected = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", cat.schema,
                "--dry-run", "--output", "json").json().get("would_drop").asLong();
        DropOrphanInlineTablesCommand cmd = new DropOrphanInlineTablesCommand();
        new CommandLine(cmd).parseArgs("--metadata-schema", cat.schema);
        String question = cmd.confirmation(pg.spec(), List.of(cat.schema), RunOptions.builder().metadataSchema(cat.schema).build());
        assertThat(question).startsWith("Drop " + expected + " orphaned inlined table(s)")
                .contains("(1 non-empty kept)").contains(pg.spec().database()).contains(pg.spec().host())
                .contains("schema " + cat.schema).endsWith("[y/N] ");
        assertThat(expected).isGreaterThanOrEqualTo(7);
    }

    @Test
    void nonEmptyOrphansAreOneLineUnlessVerboseAndCountedByKind() throws Exception {
        String s = pg.freshSchema("nonempty_summary");
        long dead;
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, FormatVersion.V1_0).create();
            dead = b.createTable("unflushed", 1);
            b.insertRows(dead, 3);
            b.dropTable(dead);
            b.expireBefore(b.snapshot());
            inlinedDeleteTable(c, s, dead, 2);
        }
        String table = "ducklake_inlined_data_" + dead + "_1";
        CliRun plain = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", s, "--yes",
                "--include-unregistered");
        assertThat(plain.exitCode()).as(plain.err()).isZero();
        assertThat(plain.out()).contains("non-empty orphans: 2 table(s)").contains("--include-nonempty drops them")
                .doesNotContain(table);
        assertThat(plain.err()).as("one summary warning, no line per table").doesNotContain("skipping non-empty orphan")
                .contains("kept 2 non-empty orphan table(s)");
        assertThat(plain.out()).containsPattern("skipped non-empty +2").containsPattern("of them registered +1")
                .containsPattern("of them inlined delete +1");

        CliRun verbose = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", s, "--yes",
                "--include-unregistered", "--verbose", "--output", "json");
        assertThat(verbose.err()).contains("skipping non-empty orphan " + table);
        JsonNode doc = verbose.json();
        assertThat(doc.get("skipped_nonempty").asLong()).isEqualTo(2);
        assertThat(doc.get("skipped_nonempty_registered").asLong()).isEqualTo(1);
        assertThat(doc.get("skipped_nonempty_unregistered").asLong()).isZero();
        assertThat(doc.get("skipped_nonempty_inlined_delete").asLong()).isEqualTo(1);
        assertThat(doc.get("non_empty_tables")).hasSize(2);

        DropOrphanInlineTablesResult again = Catalogs.run(s, o -> o.includeUnregistered(true));
        Map<String, MaintenanceRunReporter.PerRun> gauges = new DropOrphanInlineTablesCommand().pushedGauges(again);
        assertThat(gauges.get("ducklake_maintenance_inline_orphans_skipped_nonempty_last_run").value()).isEqualTo(2);
        assertThat(gauges.get("ducklake_maintenance_inline_orphans_skipped_nonempty_last_run").help()).contains("every kind");
        assertThat(gauges.get("ducklake_maintenance_inline_orphans_skipped_nonempty_inlined_delete_last_run").value()).isEqualTo(1);
        assertThat(gauges.get("ducklake_maintenance_inline_orphans_skipped_nonempty_unregistered_last_run").value()).isZero();

        CliRun listed = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", s, "--dry-run",
                "--verbose");
        assertThat(listed.out()).contains("non-empty orphan found: " + table).contains("3 rows");
    }

    @Test
    void jsonListsAreCompleteOrSayTheyAreCut() throws Exception {
        String s = pg.freshSchema("lists_complete");
        int n = 1005;
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, FormatVersion.V1_0).create();
            b.bulkCreateAndDrop("leak", n, 1, 200);
            b.expireBefore(b.snapshot());
            // every leaked table holds a row, and half lose their registry row (unregistered leftovers)
            exec(c, "DO $$ DECLARE r record; BEGIN FOR r IN SELECT c.relname FROM pg_class c JOIN pg_namespace n"
                    + " ON n.oid = c.relnamespace WHERE n.nspname = '" + s + "' AND c.relname ~ '^ducklake_inlined_data_[0-9]+_[0-9]+$'"
                    + " LOOP EXECUTE format('INSERT INTO %I.%I (row_id, begin_snapshot) VALUES (1, 1)', '" + s
                    + "', r.relname); END LOOP; END $$");
            exec(c, "DELETE FROM " + Sql.qualified(s, "ducklake_inlined_data_tables"));
        }
        CliRun dry = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", s, "--dry-run",
                "--output", "json");
        assertThat(dry.exitCode()).as(dry.err()).isZero();
        JsonNode doc = dry.json();
        assertThat(doc.get("non_empty_tables")).as("every non-empty orphan, no cap").hasSize(n);
        assertThat(doc.get("unregistered_tables")).hasSize(1000);
        assertThat(doc.get("unregistered_tables_truncated").asBoolean()).isTrue();
        assertThat(doc.get("unregistered_tables_total").asLong()).isEqualTo(n);
        assertThat(doc.get("anomaly_tables_truncated").asBoolean()).isFalse();
        assertThat(doc.get("warnings_truncated").asBoolean()).isFalse();
        assertThat(doc.get("warnings_total").asLong()).isEqualTo(doc.get("warnings").size());
    }

    @Test
    void theRoutineBatchSizeLoweringIsAVerboseDetail() throws Exception {
        FaultCatalog cat;
        try (Connection c = pg.connect()) {
            cat = FaultCatalog.build(c, pg.freshSchema("lowered_quiet"), 3);
        }
        CliRun quiet = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", cat.schema,
                "--dry-run", "--batch-size", "2000");
        assertThat(quiet.exitCode()).isZero();
        assertThat(quiet.err()).doesNotContain("lowered to");
        CliRun verbose = CliRun.run("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", cat.schema,
                "--dry-run", "--batch-size", "2000", "--verbose", "--output", "json");
        assertThat(verbose.err()).contains("--batch-size 2000 lowered to");
        assertThat(verbose.json().get("batch_size_start").asInt()).isLessThan(2000);
    }
}
