package dev.ducklake.janitor.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.check.CheckResult;
import dev.ducklake.janitor.ops.check.DamagedCatalog;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.expiresnapshots.ExpireSnapshotsResult;
import dev.ducklake.janitor.ops.purgestats.PurgeOrphanStatsResult;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fluent API gives what the CLI gives: each action runs on one copy of a catalog and the CLI on another copy built
 * the same way, a dry run first and then an execute run, and every figure of the API's result record equals the same
 * member of the CLI's JSON (timings, the schema name and the cutoff instants aside). The API reaches the catalog through a
 * {@link PGSimpleDataSource}.
 */
class JanitorApiTest {

    private static final ObjectMapper JSON = new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
    /** Members that differ between two runs on two copies: the schema, times, the cutoffs computed from now(). */
    private static final Pattern VOLATILE = Pattern.compile("schema|.*seconds.*|elapsed.*|.*cutoff|.*_at|batch_list|warnings");

    private final TestPostgres pg = TestPostgres.get();

    private DataSource dataSource() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(pg.url());
        return new DataSource(ds);
    }

    /** A named wrapper so the test reads as the scheduler's code would. */
    private record DataSource(PGSimpleDataSource ds) {
        Janitor on(String schema) {
            return Janitor.on(ds, schema);
        }
    }

    private CliRun cli(String command, String schema, boolean dryRun, String... extra) {
        List<String> args = new ArrayList<>(List.of(command, "--catalog", pg.url(), "--metadata-schema", schema, "--output", "json"));
        args.add(dryRun ? "--dry-run" : "--yes");
        args.addAll(List.of(extra));
        return CliRun.run(args.toArray(new String[0]));
    }

    /** Every member of the API's result (as JSON) that the CLI's document also has is equal there; returns how many. */
    private static int assertSameFigures(Object apiResult, CliRun cli) {
        JsonNode api = JSON.valueToTree(apiResult);
        JsonNode doc = cli.json();
        int compared = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = api.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            if (VOLATILE.matcher(f.getKey()).matches() || !doc.has(f.getKey())) {
                continue;
            }
            // as text: the CLI reads its numbers back as int or long by size, valueToTree keeps the record's types
            assertThat(f.getValue().toString()).as("member %s of the API's result against the CLI's JSON\n%s", f.getKey(), cli)
                    .isEqualTo(doc.get(f.getKey()).toString());
            compared++;
        }
        return compared;
    }

    private String damaged(String prefix) throws Exception {
        String schema = pg.freshSchema(prefix);
        try (Connection c = pg.connect()) {
            new DamagedCatalog(schema, FormatVersion.V1_0).build(c);
        }
        return schema;
    }

    /**
     * A consistent catalog that leaked: three dropped and expired tables whose inlined-data tables are left, and orphaned
     * stats rows (10 table_ids of 1 table-stats and 3 column-stats rows each). ({@link DamagedCatalog} has every kind of
     * damage, some of which make the changing operations refuse the catalog: it serves {@code check}.)
     */
    private String leaky(String prefix) throws Exception {
        String schema = pg.freshSchema(prefix);
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
            long live = b.createTable("live", 1);
            b.insertRows(live, 2);
            b.bulkCreateAndDrop("dead_", 3, 2, 100);
            b.expireBefore(b.snapshot());
            String s = Sql.ident(schema);
            Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_table_stats VALUES (" + live + ", 1, 1, 1)");
            Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_table_stats SELECT 1000 + g, 1, 1, 1 FROM generate_series(1, 10) g");
            Catalogs.exec(c, "INSERT INTO " + s + ".ducklake_table_column_stats (table_id, column_id) SELECT 1000 + g / 3 + 1, g % 3"
                    + " FROM generate_series(0, 29) g");
        }
        return schema;
    }

    @Test
    void dropOrphanInlineTablesGivesWhatTheCliGives() throws Exception {
        String viaCli = leaky("api_drop_cli");
        String viaApi = leaky("api_drop_api");
        Janitor lake = dataSource().on(viaApi);

        CliRun cliDry = cli("drop-orphan-inline-tables", viaCli, true, "--batch-size", "7");
        DropOrphanInlineTablesResult dry = lake.dropOrphanInlineTables().dryRun(true).batchSize(7).execute();
        assertThat(dry.dryRun()).isTrue();
        assertThat(dry.wouldDrop()).as("the three leaked tables").isEqualTo(3);
        assertThat(assertSameFigures(dry, cliDry)).as("figures compared").isGreaterThan(10);

        CliRun cliRun = cli("drop-orphan-inline-tables", viaCli, false, "--batch-size", "7");
        DropOrphanInlineTablesResult done = lake.dropOrphanInlineTables().batchSize(7).execute();
        assertThat(done.dryRun()).as("execute is the default").isFalse();
        assertThat(done.dropped()).as("the execute run drops what the dry run said").isEqualTo(dry.wouldDrop());
        assertSameFigures(done, cliRun);
    }

    @Test
    void purgeOrphanStatsGivesWhatTheCliGives() throws Exception {
        String viaCli = leaky("api_purge_cli");
        String viaApi = leaky("api_purge_api");
        Janitor lake = dataSource().on(viaApi);

        CliRun cliDry = cli("purge-orphan-stats", viaCli, true);
        PurgeOrphanStatsResult dry = lake.purgeOrphanStats().dryRun(true).execute();
        assertThat(dry.orphanRowsTotal()).as("10 table-stats and 30 column-stats rows").isEqualTo(40);
        assertThat(assertSameFigures(dry, cliDry)).isGreaterThan(5);

        CliRun cliRun = cli("purge-orphan-stats", viaCli, false);
        PurgeOrphanStatsResult done = lake.purgeOrphanStats().dryRun(false).execute();
        assertThat(done.rowsDeletedTotal()).isEqualTo(dry.orphanRowsTotal());
        assertThat(done.remaining()).isZero();
        assertSameFigures(done, cliRun);
    }

    @Test
    void checkGivesWhatTheCliGives() throws Exception {
        String schema = damaged("api_check");
        CliRun cliRun = CliRun.run("check", "--catalog", pg.url(), "--metadata-schema", schema, "--output", "json");
        assertThat(cliRun.exitCode()).as("findings: exit 12\n%s", cliRun).isEqualTo(12);
        CheckResult r = dataSource().on(schema).check().maxExamples(5).execute();
        assertThat(r.findings()).isNotEmpty();
        assertThat(r.errors()).isEmpty();
        assertThat(assertSameFigures(r, cliRun)).as("status, findings, counts, errors").isGreaterThanOrEqualTo(4);
        CheckResult viaString = Janitor.on(pg.url(), schema).check().maxExamples(5).execute();
        assertThat(viaString.counts()).as("the connection-string entry point reads the same catalog").isEqualTo(r.counts());
    }

    /** A catalog whose snapshots are all 10 days old but the newest two (one hour old), with a table dropped on the way. */
    private String aged(String prefix) throws Exception {
        String schema = pg.freshSchema(prefix);
        try (Connection c = pg.connect()) {
            CatalogBuilder b = new CatalogBuilder(c, schema, FormatVersion.V1_0).create();
            long live = b.createTable("live", 1);
            b.insertRows(live, 2);
            long dead = b.createTable("dead", 2);
            b.insertRows(dead, 3);
            b.dropTable(dead);
            b.insertRows(live, 1);
            long n = b.snapshot();
            Catalogs.exec(c, "UPDATE " + Sql.qualified(schema, "ducklake_snapshot") + " SET snapshot_time = now() - CASE WHEN"
                    + " snapshot_id >= " + (n - 1) + " THEN interval '1 hour' ELSE interval '10 days' END");
        }
        return schema;
    }

    @Test
    void expireSnapshotsGivesWhatTheCliGives() throws Exception {
        String viaCli = aged("api_exp_cli");
        String viaApi = aged("api_exp_api");
        Janitor lake = dataSource().on(viaApi);

        CliRun cliDry = cli("expire-snapshots", viaCli, true, "--older-than", "7d");
        ExpireSnapshotsResult dry = lake.expireSnapshots().olderThan(Duration.ofDays(7)).dryRun(true).execute();
        assertThat(dry.snapshotsExpired()).as("every snapshot but the newest two would go").isPositive();
        assertThat(dry.tablesRemoved()).as("the dropped table").isEqualTo(1);
        assertThat(assertSameFigures(dry, cliDry)).isGreaterThan(5);

        CliRun cliRun = cli("expire-snapshots", viaCli, false, "--older-than", "7d");
        ExpireSnapshotsResult done = lake.expireSnapshots().olderThan(Duration.ofDays(7)).execute();
        assertThat(done.snapshotsExpired()).isEqualTo(dry.snapshotsExpired());
        assertThat(done.tablesRemoved()).isEqualTo(1);
        assertSameFigures(done, cliRun);
    }

    @Test
    void settingsReachTheEngineItsValidationAndItsStop() throws Exception {
        String schema = leaky("api_settings");
        Janitor lake = dataSource().on(schema);
        assertThatThrownBy(() -> lake.purgeOrphanStats().batchSize(0).execute()).isInstanceOf(JanitorException.class)
                .satisfies(e -> assertThat(((JanitorException) e).reason()).isEqualTo(Reason.USAGE));
        assertThatThrownBy(() -> lake.expireSnapshots().dryRun(true).execute()).as("no criterion and no catalog option")
                .isInstanceOf(JanitorException.class)
                .satisfies(e -> assertThat(((JanitorException) e).reason()).isEqualTo(Reason.USAGE));

        AtomicInteger batches = new AtomicInteger();
        PurgeOrphanStatsAction one = lake.purgeOrphanStats().batchSize(1).maxBatches(1)
                .progress(new ProgressListener() {
                    @Override
                    public void batch(BatchProgress b) {
                        batches.incrementAndGet();
                    }
                });
        PurgeOrphanStatsResult r = one.execute();
        assertThat(r.maxBatchesReached()).isTrue();
        assertThat(r.run().batches()).isEqualTo(1);
        assertThat(batches).as("the listener saw the batch").hasValue(1);
        assertThatThrownBy(one::execute).as("single-use").isInstanceOf(IllegalStateException.class);

        PurgeOrphanStatsAction stopped = lake.purgeOrphanStats().batchSize(1);
        stopped.requestStop();
        PurgeOrphanStatsResult s = stopped.execute();
        assertThat(s.stopRequested()).as("a stop requested before execute ends the run early").isTrue();
        assertThat(s.budgetExhausted()).as("a stop request is not a spent budget").isFalse();
        assertThat(s.remaining()).isPositive();

        assertThat(lake.toString()).doesNotContain("password").contains(schema);
        assertThatThrownBy(() -> Janitor.on("postgresql://u:s3cret@h:5432/d?bogus=1", "public"))
                .isInstanceOf(JanitorException.class).hasMessageNotContaining("s3cret");
    }
}
