package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;

import static org.assertj.core.api.Assertions.assertThat;

/** The expire-snapshots command: flags, exit codes, JSON members, several schemas. */
class ExpireSnapshotsCommandTest {

    private final TestPostgres pg = TestPostgres.get();

    private String catalog(String prefix) throws Exception {
        String s = pg.freshSchema(prefix);
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, s, FormatVersion.V1_0).create();
            long t = b.createTable("t", 1);
            b.dropTable(t);
            b.createTable("u", 1);
        }
        return s;
    }

    @Test
    void usageErrorsExitTwoAndChangeNothing() throws Exception {
        String s = catalog("exp_cli_usage");
        CliRun none = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", s, "--yes");
        assertThat(none.exitCode()).isEqualTo(2);
        assertThat(none.err()).contains("--older-than").contains("--retain-last").contains("--versions").contains("expire_older_than");
        assertThat(CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", s, "--versions", "1", "--older-than", "1d")
                .exitCode()).isEqualTo(2);
        assertThat(CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", s, "--older-than", "tomorrow").exitCode())
                .isEqualTo(2);
        assertThat(CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", s, "--older-than", "1d", "--min-age", "1y")
                .exitCode()).isEqualTo(2);
        assertThat(CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", s, "--retain-last", "0").exitCode())
                .isEqualTo(2);
        assertThat(CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", s, "--older-than", "1d", "--batch-size", "0")
                .exitCode()).isEqualTo(2);
        CliRun tooBig = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", s, "--older-than", "1d",
                "--batch-size", "1000001");
        assertThat(tooBig.exitCode()).isEqualTo(2);
        assertThat(tooBig.err()).contains("--batch-size must be between 1 and 1000000 snapshots, got 1000001");
    }

    @Test
    void batchSizeCountsSnapshotsBeyondTheSharedTableLimit() throws Exception {
        String s = catalog("exp_cli_big_batch");
        CliRun run = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", s, "--retain-last", "1", "--min-age", "0s",
                "--yes", "--output", "json", "--batch-size", "1000000");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode r = new ObjectMapper().readTree(run.out());
        assertThat(r.get("snapshots_expired").asLong()).isPositive();
        assertThat(r.get("batches").asLong()).isEqualTo(1);
        CliRun help = CliRun.run("expire-snapshots", "--help");
        assertThat(help.out()).contains("Snapshots expired per transaction, 1 to 1000000").contains("Default: 5000");
    }

    @Test
    void jsonCarriesTheIssuesMembers() throws Exception {
        String s = catalog("exp_cli_json");
        CliRun dry = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", s, "--retain-last", "1", "--min-age", "0s",
                "--dry-run", "--output", "json");
        assertThat(dry.exitCode()).as(dry.err()).isZero();
        CliRun run = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", s, "--retain-last", "1", "--min-age", "0s",
                "--yes", "--output", "json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode d = new ObjectMapper().readTree(dry.out());
        JsonNode r = new ObjectMapper().readTree(run.out());
        for (String f : new String[] {"snapshots_expired", "data_files_scheduled", "delete_files_scheduled", "tables_removed",
            "inlined_tables_dropped", "oldest_retained_snapshot", "cutoff", "batches", "retries", "reconnects", "elapsed_seconds",
            "warnings", "operation", "catalog"}) {
            assertThat(r.has(f)).as(f).isTrue();
        }
        assertThat(r.get("operation").asText()).isEqualTo("expire-snapshots");
        // the dry run says what the execute run would do, under would keys; the execute run what it did
        assertThat(r.get("snapshots_expired").asLong()).isEqualTo(3).isEqualTo(d.get("snapshots_would_expire").asLong());
        assertThat(r.get("tables_removed").asLong()).isEqualTo(1).isEqualTo(d.get("tables_would_remove").asLong());
        assertThat(r.get("oldest_retained_snapshot").asLong()).isEqualTo(3);
        assertThat(d.get("dry_run").asBoolean()).isTrue();
        for (String done : new String[] {"snapshots_expired", "data_files_scheduled", "delete_files_scheduled", "tables_removed",
            "inlined_tables_dropped", "other_rows_deleted", "inlined_rows_deleted"}) {
            assertThat(d.has(done)).as("a dry run has no execute figure " + done).isFalse();
        }
        for (String would : new String[] {"snapshots_would_expire", "tables_would_remove", "inlined_rows_would_delete"}) {
            assertThat(r.has(would)).as("an execute run has no would figure " + would).isFalse();
        }
    }

    @Test
    void textSaysWouldInADryRunAndWhatWasDoneInAnExecuteRun() throws Exception {
        String s = catalog("exp_cli_text");
        CliRun dry = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", s, "--retain-last", "1", "--min-age", "0s",
                "--dry-run");
        assertThat(dry.exitCode()).as(dry.err()).isZero();
        assertThat(dry.out()).containsPattern("would expire snapshots +3").containsPattern("would remove tables +1")
                .doesNotContain("expired snapshots");
        CliRun run = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", s, "--retain-last", "1", "--min-age", "0s",
                "--yes");
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).containsPattern("expired snapshots +3").containsPattern("removed tables +1").doesNotContain("would ");
        String a = catalog("exp_cli_text_a");
        String b = catalog("exp_cli_text_b");
        CliRun total = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", a, "--metadata-schema", b,
                "--retain-last", "1", "--min-age", "0s", "--dry-run");
        assertThat(total.exitCode()).as(total.err()).isZero();
        assertThat(total.out()).as("the multi-schema total").containsPattern("snapshots would expire +6")
                .doesNotContain("snapshots expired");
    }

    @Test
    void severalSchemasRunInTurn() throws Exception {
        String a = catalog("exp_cli_a");
        String b = catalog("exp_cli_b");
        CliRun run = CliRun.run("expire-snapshots", "--catalog", pg.url(), "--metadata-schema", a, "--metadata-schema", b,
                "--retain-last", "1", "--min-age", "0s", "--yes", "--output", "json");
        assertThat(run.exitCode()).as(run.err()).isZero();
        JsonNode doc = new ObjectMapper().readTree(run.out());
        assertThat(doc.get("schemas")).hasSize(2);
        assertThat(doc.get("schemas").get(1).get("snapshots_expired").asLong()).isEqualTo(3);
    }
}
