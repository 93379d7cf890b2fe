package dev.ducklake.janitor.bench;

import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.files.ConsultOptions;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.DeleteOutcome;
import dev.ducklake.janitor.storage.ForwardingStore;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.DedicatedPostgres;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27: what the catalog census ({@code CatalogCensus}) costs before each delete batch on a server of many
 * databases. A server of this class's own holds {@code ducklake.bench.dbs} databases without a DuckLake catalog
 * (default 200) besides the swept one, whose catalog has {@code ducklake.bench.n} queued local files (default 20,000)
 * deleted in batches of 1,000. The same cleanup runs on identical trees with the server's other databases consulted
 * (the survey logs in to each once; the census looks at each before every batch) and without them
 * ({@code --no-consult-server}: the census probes the swept session only), and each mode's survey alone (a dry run) is
 * timed too, so that the census's own share is the difference of the differences. Logins are counted from
 * {@code pg_stat_database.sessions} (PostgreSQL 14+). A last run checks what the census is for: a catalog created in the
 * last database at the first batch's deletes stops the run before the second's. Printed, never asserted on time:
 * {@code mvn -B -o test -Dtest=CatalogCensusBenchmark -Dducklake.bench.storage=true [-Dducklake.bench.n=20000]
 * [-Dducklake.bench.dbs=200] [-Dducklake.bench.maxConnections=N]} (the census keeps at most a quarter of the
 * server's {@code max_connections} open).
 */
class CatalogCensusBenchmark {

    private static final String MAIN = "bench_census_main";

    @Test
    void censusOnAServerOfManyDatabases() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("ducklake.bench.storage"), "set -Dducklake.bench.storage=true");
        int n = Integer.getInteger("ducklake.bench.n", 20_000);
        int dbs = Integer.getInteger("ducklake.bench.dbs", 200);
        Path root = Files.createTempDirectory("bench-census-");
        String maxConnections = System.getProperty("ducklake.bench.maxConnections");
        try (DedicatedPostgres pg = DedicatedPostgres.start(maxConnections == null ? Map.of()
                : Map.of("max_connections", maxConnections), null)) {
            long t0 = System.nanoTime();
            try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                st.execute("CREATE DATABASE " + Sql.ident(MAIN));
                for (int i = 0; i < dbs; i++) {
                    st.execute("CREATE DATABASE " + Sql.ident(other(i)));
                }
            }
            long slots;
            try (Connection c = pg.connect()) {
                slots = Catalogs.scalar(c, "SELECT current_setting('max_connections')::bigint");
            }
            System.out.printf("census benchmark: %d catalog-less databases created in %.1f s, max_connections %d%n", dbs,
                    secs(t0), slots);
            ConnectionSpec spec = pg.spec().withDatabase(MAIN);
            try (Connection c = spec.openRaw()) {
                Catalogs.loadFixture04(c, "lake");
                Catalogs.exec(c, "UPDATE " + Sql.qualified("lake", "ducklake_metadata") + " SET value = '1.0' WHERE key = 'version'");
                Catalogs.exec(c, "DELETE FROM " + Sql.qualified("lake", "ducklake_metadata") + " WHERE key = 'data_path'");
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified("lake", "ducklake_metadata")
                        + " VALUES ('data_path', ?, NULL, NULL)")) {
                    ps.setString(1, root + "/");
                    ps.executeUpdate();
                }
            }
            ConsultOptions server = ConsultOptions.defaults().withServer(spec);
            ConsultOptions alone = server.withConsultServer(false);
            for (int round = 1; round <= 2; round++) {
                double surveyAlone = run(pg, spec, root, n, alone, true, null);
                double surveyServer = run(pg, spec, root, n, server, true, null);
                long before = sessions(pg);
                double base = run(pg, spec, root, n, alone, false, null);
                long baseLogins = sessions(pg) - before;
                before = sessions(pg);
                double census = run(pg, spec, root, n, server, false, null);
                long censusLogins = sessions(pg) - before;
                double share = (census - base) - (surveyServer - surveyAlone);
                System.out.printf("cleanup-old-files, %,d queued files in batches of 1,000, %d other databases (round %d):"
                        + " server not consulted %.2f s (%d logins), server consulted %.2f s (%d logins); survey alone"
                        + " %.2f s vs %.2f s; the census across the server: %.2f s, %.0f%% of the consulted run%n",
                        n, dbs, round, base, baseLogins, census, censusLogins, surveyAlone, surveyServer, share,
                        100 * share / census);
            }
            // the census still looks at the last database before every batch: a catalog there stops the run
            run(pg, spec, root, n, server, false, other(dbs - 1));
        }
    }

    private static String other(int i) {
        return String.format("bench_census_%03d", i);
    }

    private static double secs(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }

    /** Logins the server counted so far (sessions ended or going; -1 before PostgreSQL 14). */
    private static long sessions(DedicatedPostgres pg) throws Exception {
        Thread.sleep(200); // a session's statistics are flushed when it ends
        try (Connection c = pg.connect()) {
            return Catalogs.scalar(c, "SELECT CASE WHEN current_setting('server_version_num')::int >= 140000"
                    + " THEN (SELECT sum((to_jsonb(d) ->> 'sessions')::bigint) FROM pg_stat_database d) ELSE -1 END");
        }
    }

    /**
     * One cleanup of n fresh queued files under a new folder; a dry run only surveys and lists. With
     * {@code appearIn}, a catalog is created in that database at the first batch's deletes and the run must stop.
     */
    private static double run(DedicatedPostgres pg, ConnectionSpec spec, Path root, int n, ConsultOptions consult,
                              boolean dryRun, String appearIn) throws Exception {
        String folder = "main/q" + System.nanoTime();
        Path dir = root.resolve(folder);
        Files.createDirectories(dir);
        byte[] b = new byte[16];
        for (int i = 0; i < n; i++) {
            Files.write(dir.resolve("f" + i + ".parquet"), b);
        }
        try (Connection c = spec.openRaw();
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified("lake", "ducklake_files_scheduled_for_deletion")
                     + " SELECT 100000000 + g, ? || '/f' || g || '.parquet', true, now() - interval '3 days'"
                     + " FROM generate_series(0, ? - 1) g")) {
            c.setAutoCommit(true);
            Catalogs.exec(c, "DELETE FROM " + Sql.qualified("lake", "ducklake_files_scheduled_for_deletion"));
            ps.setString(1, folder);
            ps.setInt(2, n);
            ps.executeUpdate();
        }
        AtomicBoolean appeared = new AtomicBoolean(appearIn == null);
        ForwardingStore store = new ForwardingStore(new LocalFileStore(root)) {
            @Override
            public DeleteOutcome delete(List<String> addresses) throws StorageException {
                return delete(addresses, false);
            }

            @Override
            public DeleteOutcome delete(List<String> addresses, boolean measure) throws StorageException {
                if (appeared.compareAndSet(false, true)) {
                    try (Connection c = pg.spec().withDatabase(appearIn).openRaw()) {
                        Catalogs.loadFixture04(c, "fresh");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
                return inner.delete(addresses, measure);
            }
        };
        long t0 = System.nanoTime();
        CleanupOldFilesResult r;
        try (Connection c = spec.openRaw()) {
            r = QueueSweep.run(c, store, CleanupOldFilesOptions.builder("lake").dryRun(dryRun).batchSize(1000)
                    .consult(consult).build(), FileListener.NONE);
        }
        double secs = secs(t0);
        if (appearIn != null) {
            assertThat(r.filesDeleted()).as("only the first batch, checked before the catalog appeared").isEqualTo(1000);
            assertThat(r.stoppedDuring()).isEqualTo("deleting");
            assertThat(r.findings()).anySatisfy(f -> assertThat(f).contains("appeared during the run")
                    .contains(appearIn + "/fresh"));
            try (var files = Files.list(dir)) {
                assertThat(files.count()).isEqualTo(n - 1000);
            }
        } else if (dryRun) {
            assertThat(r.dryRun()).isTrue();
            assertThat(r.queueRowsConsidered()).isEqualTo(n);
            try (var files = Files.list(dir)) {
                assertThat(files.count()).as("a dry run deletes nothing").isEqualTo(n);
            }
        } else {
            assertThat(r.filesDeleted()).as("%s", r).isEqualTo(n);
            assertThat(r.filesNotFound()).as("%s", r).isZero();
            assertThat(r.stoppedDuring()).isNull();
            try (var files = Files.list(dir)) {
                assertThat(files.count()).isZero();
            }
        }
        assertThat(r.catalogsConsulted()).containsExactly("lake");
        return secs;
    }
}
