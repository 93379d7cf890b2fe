package dev.ducklake.janitor.bench;

import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.deleteorphanfiles.OrphanSweep;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesOptions;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesResult;
import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.DeleteOutcome;
import dev.ducklake.janitor.storage.ForwardingStore;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27: what cleanup-old-files' re-check of each batch costs once another tenant's catalog commits during the run
 * ({@code CatalogWatermark}, {@code CatalogRecheck.ofLiveFiles}). A neighbour catalog in the same database holds
 * {@code ducklake.bench.rows} data file rows (and a fifth as many delete files); the swept catalog has
 * {@code ducklake.bench.n} queued local files in batches of 1,000. The same cleanup runs twice on identical trees: with
 * the neighbour quiet (the baseline: no re-check), and with the neighbour committing a snapshot at the first batch's
 * deletes (every later batch re-checked). Printed, never asserted on time:
 * {@code mvn -B -o test -Dtest=CatalogRecheckBenchmark -Dducklake.bench.storage=true [-Dducklake.bench.n=20000]
 * [-Dducklake.bench.rows=1000000]}.
 */
class CatalogRecheckBenchmark {

    @Test
    void recheckWhileANeighbourCommits() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("ducklake.bench.storage"), "set -Dducklake.bench.storage=true");
        int n = Integer.getInteger("ducklake.bench.n", 20_000);
        int rows = Integer.getInteger("ducklake.bench.rows", 1_000_000);
        Path root = Files.createTempDirectory("bench-recheck-");
        FileCatalog neighbour = FileCatalog.create("bench_recheck_nb", root.resolve("neighbour") + "/");
        try (Connection c = TestPostgres.get().connect()) {
            c.setAutoCommit(true);
            Catalogs.exec(c, "INSERT INTO " + Sql.qualified(neighbour.schema, "ducklake_data_file")
                    + " (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format)"
                    + " SELECT 10000000 + g, 1, 1, 'd' || g || '.parquet', true, 'parquet' FROM generate_series(1, " + rows + ") g");
            Catalogs.exec(c, "INSERT INTO " + Sql.qualified(neighbour.schema, "ducklake_delete_file")
                    + " (delete_file_id, table_id, begin_snapshot, data_file_id, path, path_is_relative, format)"
                    + " SELECT 20000000 + g, 1, 1, 0, 'x' || g || '.puffin', true, 'puffin' FROM generate_series(1, " + rows / 5 + ") g");
            Catalogs.exec(c, "ANALYZE " + Sql.qualified(neighbour.schema, "ducklake_data_file"));
            Catalogs.exec(c, "ANALYZE " + Sql.qualified(neighbour.schema, "ducklake_delete_file"));
        }
        for (int round = 1; round <= 2; round++) {
            double quiet = run(root.resolve("quiet" + round), n, null);
            double moving = run(root.resolve("moving" + round), n, neighbour);
            System.out.printf("cleanup-old-files re-check, %,d queued files, neighbour of %,d data files (round %d):"
                    + " quiet %.2f s, neighbour committing %.2f s, ratio %.2f%n", n, rows, round, quiet, moving, moving / quiet);
        }
        try (Connection c = TestPostgres.get().connect()) {
            // the next benchmark of this JVM would consult it too
            Catalogs.exec(c, "DROP SCHEMA " + Sql.ident(neighbour.schema) + " CASCADE");
        }
    }

    /**
     * delete-orphan-files over {@code ducklake.bench.n} orphans (default 100,000: ten delete rounds) in a catalog whose
     * data file table holds {@code ducklake.bench.rows} rows (none of them on disk), against the same sweep in a
     * catalog of one row: what each round's re-check costs as the catalog grows. Printed, never asserted on time:
     * {@code -Dtest=CatalogRecheckBenchmark#orphanRoundsInALargeCatalog}.
     */
    @Test
    void orphanRoundsInALargeCatalog() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("ducklake.bench.storage"), "set -Dducklake.bench.storage=true");
        int n = Integer.getInteger("ducklake.bench.n", 100_000);
        int rows = Integer.getInteger("ducklake.bench.rows", 1_000_000);
        for (int round = 1; round <= 2; round++) {
            double small = sweep(n, 0);
            double large = sweep(n, rows);
            System.out.printf("delete-orphan-files re-check, %,d orphans (round %d): catalog of 1 file %.2f s, of %,d files"
                    + " %.2f s, ratio %.2f%n", n, round, small, rows, large, large / small);
        }
    }

    private static double sweep(int n, int rows) throws Exception {
        Path lake = Files.createTempDirectory("bench-orecheck-");
        FileCatalog cat = FileCatalog.create("bench_orecheck", lake + "/");
        Path dir = lake.resolve("main/o");
        Files.createDirectories(dir);
        byte[] b = new byte[16];
        for (int i = 0; i < n; i++) {
            Files.write(dir.resolve("f" + i + ".parquet"), b);
        }
        FileCatalog.file(lake.resolve("main/test/known.parquet"), java.time.Duration.ofDays(3));
        cat.dataFile(1, "known.parquet", true);
        try (Connection c = TestPostgres.get().connect()) {
            c.setAutoCommit(true);
            if (rows > 0) {
                Catalogs.exec(c, "INSERT INTO " + Sql.qualified(cat.schema, "ducklake_data_file")
                        + " (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format)"
                        + " SELECT 10000000 + g, 1, 1, 'd' || g || '.parquet', true, 'parquet' FROM generate_series(1, " + rows + ") g");
            }
            Catalogs.exec(c, "ANALYZE " + Sql.qualified(cat.schema, "ducklake_data_file"));
        }
        Thread.sleep(20);
        long t0 = System.nanoTime();
        DeleteOrphanFilesResult r;
        try (Connection c = TestPostgres.get().connect()) {
            r = OrphanSweep.run(c, new LocalFileStore(), DeleteOrphanFilesOptions.builder(cat.schema).dryRun(false)
                    .minAge(java.time.Duration.ZERO).allowShortRetention(true).olderThan(AgeThreshold.parse("0s"))
                    .maxOrphanRatio(1.0).build(), FileListener.NONE);
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        assertThat(r.deleted()).isEqualTo(n);
        try (Connection c = TestPostgres.get().connect()) {
            Catalogs.exec(c, "DROP SCHEMA " + Sql.ident(cat.schema) + " CASCADE");
        }
        return secs;
    }

    /** One cleanup of n fresh queued files; with {@code committer}, that catalog commits a snapshot at the first delete. */
    private static double run(Path lake, int n, FileCatalog committer) throws Exception {
        FileCatalog cat = FileCatalog.create("bench_recheck", lake + "/");
        Path dir = lake.resolve("main/q");
        Files.createDirectories(dir);
        byte[] b = new byte[16];
        for (int i = 0; i < n; i++) {
            Files.write(dir.resolve("f" + i + ".parquet"), b);
        }
        try (Connection c = TestPostgres.get().connect();
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified(cat.schema, "ducklake_files_scheduled_for_deletion")
                     + " SELECT 100000000 + g, 'main/q/f' || g || '.parquet', true, now() - interval '3 days' FROM generate_series(0, ? - 1) g")) {
            ps.setInt(1, n);
            ps.executeUpdate();
        }
        AtomicBoolean committed = new AtomicBoolean(committer == null);
        ForwardingStore store = new ForwardingStore(new LocalFileStore(lake)) {
            @Override
            public DeleteOutcome delete(List<String> addresses) throws StorageException {
                return delete(addresses, false);
            }

            @Override
            public DeleteOutcome delete(List<String> addresses, boolean measure) throws StorageException {
                if (committed.compareAndSet(false, true)) {
                    try (Connection c = TestPostgres.get().connect()) {
                        Catalogs.exec(c, "INSERT INTO " + Sql.qualified(committer.schema, "ducklake_snapshot")
                                + " SELECT snapshot_id + 1, now(), schema_version, next_catalog_id, next_file_id FROM "
                                + Sql.qualified(committer.schema, "ducklake_snapshot") + " ORDER BY snapshot_id DESC LIMIT 1");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
                return inner.delete(addresses, measure);
            }
        };
        long t0 = System.nanoTime();
        CleanupOldFilesResult r;
        try (Connection c = TestPostgres.get().connect()) {
            r = QueueSweep.run(c, store, CleanupOldFilesOptions.builder(cat.schema).dryRun(false)
                    .batchSize(1000).build(), FileListener.NONE);
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        assertThat(r.filesDeleted()).isEqualTo(n);
        assertThat(committed).isTrue();
        return secs;
    }
}
