package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.deleteorphanfiles.OrphanSweep;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesOptions;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesResult;
import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.testsupport.Migrate11;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Differential test of both storage commands against DuckLake 1.5.5 itself, on local disk. One catalog and data
 * directory are written by the real DuckLake (inserts, a merge of adjacent files, deletes, an update, a dropped
 * table, snapshot expiry: the deletion queue is full), stray files are added, the queue is back-dated, and the
 * catalog schema and the directory are copied. DuckLake's own {@code ducklake_cleanup_old_files} and
 * {@code ducklake_delete_orphaned_files} run on copy A, ours on copy B; the files left and the queue rows must be
 * the same, and DuckLake must read every table of B afterwards.
 */
class StorageDifferentialInteropTest {

    private final List<Path> dirs = new ArrayList<>();

    @AfterEach
    void cleanup() throws IOException {
        for (Path d : dirs) {
            if (Files.exists(d)) {
                try (Stream<Path> s = Files.walk(d)) {
                    s.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
    }

    /**
     * Format 1.1 (issue 22): copy B is migrated to 1.1 with DuckLake's own steps ({@link Migrate11}) before ours run, so
     * ours on 1.1 must leave what DuckLake 1.5.5's functions leave on the 1.0 original (1.5.5 cannot open 1.1, so the
     * final re-read of B is skipped there); a nested schema added by hand makes both commands refuse first (exit 5).
     */
    @ParameterizedTest(name = "our side at format {0}")
    @ValueSource(strings = {"1.0", "1.1"})
    void ourCleanupAndOrphanSweepLeaveWhatDuckLakesOwnFunctionsLeave(String format) throws Exception {
        InteropCatalog a = InteropCatalog.fresh("st_diff_a");
        dirs.add(a.dataDir());
        a.run(RealDuckLake.program().attach(a.attach().inliningRowLimit(0))
                .sql("CREATE TABLE lake.t1(id INTEGER, v VARCHAR)",
                        "INSERT INTO lake.t1 VALUES (1, 'a'), (2, 'b')",
                        "INSERT INTO lake.t1 VALUES (3, 'c')",
                        "INSERT INTO lake.t1 VALUES (4, 'd')",
                        "CALL ducklake_merge_adjacent_files('lake')",
                        "DELETE FROM lake.t1 WHERE id = 2",
                        "UPDATE lake.t1 SET v = 'cc' WHERE id = 3",
                        "DELETE FROM lake.t1 WHERE id = 4",
                        "CREATE TABLE lake.t2(x BIGINT)",
                        "INSERT INTO lake.t2 VALUES (10), (20)",
                        "DROP TABLE lake.t2",
                        "CREATE TABLE lake.t3(x BIGINT)",
                        "INSERT INTO lake.t3 VALUES (7)",
                        "CALL ducklake_expire_snapshots('lake', older_than => now())"));
        String schemaA = a.schema();
        Path dirA = a.dataDir();
        long queued;
        try (Connection c = a.connect(); Statement st = c.createStatement()) {
            queued = Catalogs.scalar(c, "SELECT count(*) FROM " + Sql.qualified(schemaA, "ducklake_files_scheduled_for_deletion"));
            // age the queue past the cutoff of both sides
            st.executeUpdate("UPDATE " + Sql.qualified(schemaA, "ducklake_files_scheduled_for_deletion")
                    + " SET schedule_start = schedule_start - interval '3 days'");
        }
        assertThat(queued).as("merge, deletes, drop and expiry filled the queue").isGreaterThanOrEqualTo(4);

        Duration old = Duration.ofDays(3);
        FileCatalog.file(dirA.resolve("main/t1/ducklake-stray.parquet"), old);
        FileCatalog.file(dirA.resolve("main/stray-delete.puffin"), old);
        FileCatalog.file(dirA.resolve("main/t1/young.parquet"), Duration.ZERO);
        FileCatalog.file(dirA.resolve("notes.txt"), old);
        FileCatalog.file(dirA.resolve("catalog.db"), old);
        FileCatalog.file(dirA.resolve("catalog.duckdb"), old);

        // copy B: the catalog schema and the directory
        String schemaB = TestPostgres.get().freshSchema("st_diff_b");
        Path dirB = Files.createTempDirectory("ducklake-interop-" + schemaB + "-");
        dirs.add(dirB);
        copySchema(schemaA, schemaB);
        copyTree(dirA, dirB);
        try (Connection c = TestPostgres.get().connect();
             PreparedStatement ps = c.prepareStatement("UPDATE " + Sql.qualified(schemaB, "ducklake_metadata")
                     + " SET value = ? WHERE key = 'data_path'")) {
            ps.setString(1, dirB + "/");
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
        assertThat(files(dirB)).isEqualTo(files(dirA));
        if (format.equals("1.1")) {
            try (Connection c = TestPostgres.get().connect()) {
                Migrate11.apply(c, schemaB);
                long nested = Migrate11.addNestedSchema(c, schemaB, "europe", 0);
                assertThatThrownBy(() -> QueueSweep.run(c, new LocalFileStore(), CleanupOldFilesOptions.builder(schemaB)
                        .olderThan(AgeThreshold.parse("1d")).dryRun(false).build(), FileListener.NONE))
                        .isInstanceOfSatisfying(JanitorException.class, e -> assertThat(e.reason().exitCode()).isEqualTo(5))
                        .hasMessageContaining("nested schema");
                assertThatThrownBy(() -> OrphanSweep.run(c, new LocalFileStore(), DeleteOrphanFilesOptions.builder(schemaB)
                        .olderThan(AgeThreshold.parse("1d")).dryRun(false).build(), FileListener.NONE))
                        .isInstanceOfSatisfying(JanitorException.class, e -> assertThat(e.reason().exitCode()).isEqualTo(5))
                        .hasMessageContaining("nested schema");
                Catalogs.exec(c, "DELETE FROM " + Sql.qualified(schemaB, "ducklake_schema") + " WHERE schema_id = " + nested);
            }
            assertThat(files(dirB)).as("the refusals deleted nothing").isEqualTo(files(dirA));
        }

        // A: DuckLake's own functions
        RealDuckLake.Result dl = a.run(RealDuckLake.program().attach(a.attach())
                .query("cleanup", "SELECT path FROM ducklake_cleanup_old_files('lake', older_than => now() - INTERVAL 1 DAY)")
                .query("orphans", "SELECT path FROM ducklake_delete_orphaned_files('lake', older_than => now() - INTERVAL 1 DAY)"));
        assertThat(dl.rows("cleanup")).hasSize((int) queued);
        assertThat(dl.rows("orphans")).as("DuckLake's own candidates: the stray .parquet (1.5.5 ignores .puffin)").hasSize(1);

        // B: ours
        CleanupOldFilesResult cr;
        DeleteOrphanFilesResult orr;
        try (Connection c = TestPostgres.get().connect()) {
            cr = QueueSweep.run(c, new LocalFileStore(), CleanupOldFilesOptions.builder(schemaB)
                    .olderThan(AgeThreshold.parse("1d")).dryRun(false).batchSize(2).build(), FileListener.NONE);
            orr = OrphanSweep.run(c, new LocalFileStore(), DeleteOrphanFilesOptions.builder(schemaB)
                    .olderThan(AgeThreshold.parse("1d")).dryRun(false).build(), FileListener.NONE);
        }
        assertThat(cr.queueRowsDeleted()).isEqualTo(queued);
        assertThat(cr.keptLive()).isZero();
        assertThat(cr.failed()).isZero();
        assertThat(orr.deleted()).isEqualTo(1);

        assertThat(files(dirB)).as("files left").isEqualTo(files(dirA));
        assertThat(queue(schemaB)).as("queue rows left").isEqualTo(queue(schemaA));
        assertThat(files(dirB)).contains("main/t1/young.parquet", "notes.txt", "catalog.db", "catalog.duckdb")
                .contains("main/stray-delete.puffin").doesNotContain("main/t1/ducklake-stray.parquet");

        if (format.equals("1.1")) {
            return; // DuckLake 1.5.5 refuses to open a 1.1 catalog ("Cannot downgrade")
        }
        // DuckLake re-attaches copy B and reads every table
        RealDuckLake.Attach attachB = new RealDuckLake.Attach(TestPostgres.get().libpq(), dirB + "/").metadataSchema(schemaB);
        RealDuckLake.Result readB = a.run(RealDuckLake.program().attach(attachB)
                .query("t1", "SELECT id, v FROM lake.t1 ORDER BY id")
                .query("t3", "SELECT x FROM lake.t3"));
        RealDuckLake.Result readA = a.run(RealDuckLake.program().attach(a.attach())
                .query("t1", "SELECT id, v FROM lake.t1 ORDER BY id")
                .query("t3", "SELECT x FROM lake.t3"));
        assertThat(readB.rows("t1")).isEqualTo(readA.rows("t1")).isEqualTo(List.of(List.of("1", "a"), List.of("3", "cc")));
        assertThat(readB.rows("t3")).isEqualTo(List.of(List.of("7")));
    }

    private static void copySchema(String from, String to) throws Exception {
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA " + Sql.ident(to));
            List<String> tables = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT tablename FROM pg_tables WHERE schemaname = ? ORDER BY 1")) {
                ps.setString(1, from);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        tables.add(rs.getString(1));
                    }
                }
            }
            for (String t : tables) {
                st.execute("CREATE TABLE " + Sql.qualified(to, t) + " (LIKE " + Sql.qualified(from, t) + " INCLUDING ALL)");
                st.execute("INSERT INTO " + Sql.qualified(to, t) + " SELECT * FROM " + Sql.qualified(from, t));
            }
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static TreeSet<String> files(Path root) throws IOException {
        TreeSet<String> out = new TreeSet<>();
        try (Stream<Path> s = Files.walk(root)) {
            s.filter(Files::isRegularFile).forEach(p -> out.add(root.relativize(p).toString()));
        }
        return out;
    }

    private static List<String> queue(String schema) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT data_file_id, path, path_is_relative FROM "
                     + Sql.qualified(schema, "ducklake_files_scheduled_for_deletion") + " ORDER BY 1, 2")) {
            while (rs.next()) {
                out.add(rs.getLong(1) + "|" + rs.getString(2) + "|" + rs.getBoolean(3));
            }
        }
        return out;
    }
}
