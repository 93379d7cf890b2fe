package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.DeleteOutcome;
import dev.ducklake.janitor.storage.ForwardingStore;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.DedicatedPostgres;
import dev.ducklake.janitor.testsupport.FileCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The census ({@link CatalogCensus}) keeps connections to the server's catalog-less databases across batches, at most a
 * tenth of {@code max_connections}; when the server then refuses one of its logins (every slot taken by other
 * clients), it gives the kept connections back and logs in again instead of failing the run, and the run goes on
 * looking at every database before every batch. A server of this class's own with {@code max_connections} 40 (4 kept).
 */
class CensusConnectionLimitTest {

    @TempDir
    Path dir;

    @Test
    void aLoginRefusedWhileConnectionsAreKeptGivesThemBack() throws Exception {
        try (DedicatedPostgres pg = DedicatedPostgres.start(Map.of("max_connections", "40"), null)) {
            try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE census_cap_main");
                for (int i = 0; i < 6; i++) {
                    st.execute("CREATE DATABASE census_cap_d" + i);
                }
            }
            ConnectionSpec spec = pg.spec().withDatabase("census_cap_main");
            Path lake = dir.resolve("lake");
            List<Path> files = new ArrayList<>();
            try (Connection c = spec.openRaw()) {
                Catalogs.loadFixture04(c, "lake");
                Catalogs.exec(c, "DELETE FROM " + Sql.qualified("lake", "ducklake_metadata") + " WHERE key = 'data_path'");
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified("lake", "ducklake_metadata")
                        + " VALUES ('data_path', ?, NULL, NULL)")) {
                    ps.setString(1, lake + "/");
                    ps.executeUpdate();
                }
                for (int i = 0; i < 3; i++) {
                    files.add(FileCatalog.file(lake.resolve("main/q/f" + i + ".parquet"), Duration.ofDays(10)));
                }
                Catalogs.exec(c, "INSERT INTO " + Sql.qualified("lake", "ducklake_files_scheduled_for_deletion")
                        + " SELECT 900000 + g, 'main/q/f' || g || '.parquet', true, now() - interval '10 days'"
                        + " FROM generate_series(0, 2) g");
            }
            List<Connection> fillers = new ArrayList<>();
            List<String> refusals = new ArrayList<>();
            List<Long> kept = new ArrayList<>();
            ForwardingStore store = new ForwardingStore(new LocalFileStore(lake)) {
                private int batch;

                @Override
                public DeleteOutcome delete(List<String> addresses) throws StorageException {
                    return delete(addresses, false);
                }

                @Override
                public DeleteOutcome delete(List<String> addresses, boolean measure) throws StorageException {
                    batch++;
                    try {
                        if (batch == 1) {
                            kept.add(sessionsOnOthers(pg));
                            // other clients take every slot left before the next check
                            while (fillers.size() < 60) {
                                try {
                                    fillers.add(pg.connect());
                                } catch (SQLException refused) {
                                    refusals.add(refused.getSQLState());
                                    break;
                                }
                            }
                        } else if (batch == 2) {
                            for (Connection f : fillers) {
                                f.close();
                            }
                            kept.add(sessionsOnOthers(pg));
                        }
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                    return inner.delete(addresses, measure);
                }
            };
            CleanupOldFilesResult r;
            try (Connection c = spec.openRaw()) {
                r = QueueSweep.run(c, store, CleanupOldFilesOptions.builder("lake").dryRun(false).batchSize(1)
                        .deleteConcurrency(1).consult(ConsultOptions.defaults().withServer(spec)).build(),
                        dev.ducklake.janitor.ops.files.FileListener.NONE);
            } finally {
                for (Connection f : fillers) {
                    f.close();
                }
            }
            assertThat(refusals).as("the server refused a further client (too many connections)").containsExactly("53300");
            assertThat(kept).as("census sessions on the catalog-less databases at the first and second batch's deletes")
                    .containsExactly(4L, 0L);
            assertThat(r.filesDeleted()).as("%s", r).isEqualTo(3);
            assertThat(r.stoppedDuring()).isNull();
            for (Path f : files) {
                assertThat(f).doesNotExist();
            }
        }
    }

    private static long sessionsOnOthers(DedicatedPostgres pg) throws SQLException {
        try (Connection c = pg.connect()) {
            return Catalogs.scalar(c, "SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE datname LIKE 'census_cap_d%'");
        }
    }
}
