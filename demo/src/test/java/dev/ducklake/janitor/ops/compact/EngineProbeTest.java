package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.catalog.FormatVersion;
import dev.ducklake.janitor.demo.CatalogBuilder;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dry run of flush-inlined-data and compact checks the engine an execute run would start ({@link DuckLakeEngine#probe})
 * once per run, not once per schema ({@link EngineProbe}), and every schema's dry run still warns (exit 21) when it could
 * not start.
 */
class EngineProbeTest {

    private final TestPostgres pg = TestPostgres.get();

    @Test
    void aDryRunOverManySchemasStartsTheEngineOnceAndEachSchemaStillWarns() throws Exception {
        List<String> schemas = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String s = pg.freshSchema("engine_probe");
            try (Connection c = pg.connect()) {
                CatalogBuilder b = new CatalogBuilder(c, s, FormatVersion.V1_0).create();
                b.insertRows(b.createTable("t", 1), 10);
            }
            schemas.add(s);
        }
        Path empty = Files.createTempDirectory("no-extensions");
        EngineSettings settings = EngineSettings.defaults().withExtensionDir(empty);
        EngineProbe probe = new EngineProbe();
        List<String> warned = new ArrayList<>();
        for (String s : schemas) {
            CompactOptions o = CompactOptions.defaults(CompactMode.FLUSH_INLINED_DATA)
                    .withRun(RunOptions.builder().metadataSchema(s).dryRun(true).build()).withEngine(settings);
            CompactResult r = new CompactTables(pg.spec(), o, ProgressListener.NONE, probe).execute();
            assertThat(r.tablesWithWork()).as(s).isEqualTo(1);
            r.run().warnings().stream().filter(w -> w.contains("an execute run would stop before starting DuckDB (exit 21)"))
                    .forEach(warned::add);
        }
        assertThat(warned).as("each schema's dry run warns, with the same words").hasSize(3)
                .allSatisfy(w -> assertThat(w).isEqualTo(warned.get(0)).contains(empty.toString()));
        assertThat(probe.engineStarts()).as("one start for the run's three schemas").isEqualTo(1);

        // other settings are another engine: probed on their own, once
        Path other = Files.createTempDirectory("no-extensions-either");
        for (int i = 0; i < 2; i++) {
            try {
                probe.check(settings.withExtensionDir(other), "/tmp/ducklake-demo/");
            } catch (dev.ducklake.janitor.JanitorException e) {
                assertThat(e.reason().exitCode()).isEqualTo(21);
                assertThat(e.getMessage()).contains(other.toString());
            }
        }
        assertThat(probe.engineStarts()).isEqualTo(2);
        // a new run (a new probe) starts it again: an extension installed in between is seen
        EngineProbe next = new EngineProbe();
        CompactOptions o = CompactOptions.defaults(CompactMode.FLUSH_INLINED_DATA)
                .withRun(RunOptions.builder().metadataSchema(schemas.get(0)).dryRun(true).build()).withEngine(settings);
        new CompactTables(pg.spec(), o, ProgressListener.NONE, next).execute();
        assertThat(next.engineStarts()).isEqualTo(1);
    }
}
