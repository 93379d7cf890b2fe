package dev.ducklake.janitor.metrics;

import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.DemoScenario;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesResult;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Issue 10: the configurable /-/ready policy and the non-empty unreachable inlined-tables gauge. */
class ReadinessAndNonEmptyTest {

    static String schema;

    @BeforeAll
    static void catalog() throws Exception {
        schema = TestPostgres.get().freshSchema("ready_nonempty");
        try (Connection c = TestPostgres.get().connect()) {
            DemoScenario.build(c, schema, 4);
        }
    }

    private static List<CatalogTarget> goodAndDown() throws Exception {
        ConnectionSpec down = ConnectionSpec.parse("postgresql://nobody@127.0.0.1:1/lake?connect_timeout=2", Map.of(), null);
        return List.of(new CatalogTarget(new TargetConfig("good", TestPostgres.get().spec(), schema, Duration.ofSeconds(30), List.of()),
                        m -> { }),
                new CatalogTarget(new TargetConfig("down", down, "public", Duration.ofSeconds(30), List.of()), m -> { }));
    }

    private static int ready(MetricsDaemon d) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + d.port()
                + "/-/ready")).build(), HttpResponse.BodyHandlers.ofString());
        return r.statusCode();
    }

    private static void awaitCollected(List<CatalogTarget> targets) throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < deadline && !(targets.get(0).up() && targets.get(1).everCollected())) {
            Thread.sleep(100);
        }
        assertThat(targets.get(0).up()).isTrue();
    }

    @Test
    void readyPolicyAllNeedsEveryCatalogAnyNeedsOne() throws Exception {
        List<CatalogTarget> all = goodAndDown();
        try (MetricsDaemon d = new MetricsDaemon(all, Duration.ofSeconds(60), m -> { }, MetricsDaemon.ReadyPolicy.ALL)) {
            d.start("127.0.0.1", 0);
            awaitCollected(all);
            assertThat(d.ready()).isFalse();
            assertThat(ready(d)).isEqualTo(503);
        }
        List<CatalogTarget> any = goodAndDown();
        try (MetricsDaemon d = new MetricsDaemon(any, Duration.ofSeconds(60), m -> { }, MetricsDaemon.ReadyPolicy.ANY)) {
            d.start("127.0.0.1", 0);
            awaitCollected(any);
            assertThat(d.ready()).as("one of two catalogs up").isTrue();
            assertThat(ready(d)).isEqualTo(200);
        }
    }

    @Test
    void nonEmptyUnreachableGaugeTellsWhatNeedsIncludeNonempty() throws Exception {
        CollectResult r;
        try (Connection c = TestPostgres.get().connect()) {
            r = new CatalogHealthCollector(c, schema, "lake", Duration.ofSeconds(30), List.of()).collect();
        }
        assertThat(r.errors()).isEmpty();
        DropOrphanInlineTablesResult dry = new DropOrphanInlineTables(TestPostgres.get().spec(),
                DropOrphanInlineTablesOptions.builder().metadataSchema(schema).dryRun(true).build(), ProgressListener.NONE).execute();
        assertThat(dry.orphanNonempty()).as("the demo's non-empty orphan").isEqualTo(1);
        assertThat(r.family(CatalogHealthCollector.UNREACHABLE_NONEMPTY).valueFor("lake"))
                .as("= the dry run's non-empty orphans on this catalog").isEqualTo((double) dry.orphanNonempty());
        assertThat(r.family(CatalogHealthCollector.UNREACHABLE).valueFor("lake")).isGreaterThan(1.0);
        // upper bound, as documented: a table emptied by DELETE (a flush) keeps its blocks until VACUUM truncates it
        String table = dry.nonEmptyTables().get(0).tableName();
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
            st.execute("DELETE FROM " + Sql.qualified(schema, table));
            CollectResult afterDelete = new CatalogHealthCollector(c, schema, "lake", Duration.ofSeconds(30), List.of()).collect();
            assertThat(afterDelete.family(CatalogHealthCollector.UNREACHABLE_NONEMPTY).valueFor("lake")).isEqualTo(1.0);
            st.execute("VACUUM " + Sql.qualified(schema, table));
            CollectResult afterVacuum = new CatalogHealthCollector(c, schema, "lake", Duration.ofSeconds(30), List.of()).collect();
            assertThat(afterVacuum.family(CatalogHealthCollector.UNREACHABLE_NONEMPTY).valueFor("lake")).isEqualTo(0.0);
        }
    }
}
