package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.deleteorphanfiles.OrphanSweep;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesOptions;
import dev.ducklake.janitor.ops.deleteorphanfiles.DeleteOrphanFilesResult;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The trial of 2026-12-06: a schema of the swept database holding a DuckLake catalog only in part (its
 * {@code ducklake_metadata} with a version row and a data path, but no {@code ducklake_data_file}: a catalog half
 * created or half dropped) failed every storage run with the server's raw {@code relation ... does not exist} (exit 9).
 * Such a catalog is seen but cannot be read, so the files it may reference are unknown: the run refuses with exit 6
 * naming the schema and the tables it lacks, deletes nothing, and is waived like an unreadable catalog, with
 * {@code --exclude-catalog-schema}.
 */
class IncompleteCatalogTest {

    private static final Duration OLD = Duration.ofDays(10);

    @TempDir
    Path dir;

    @Test
    void aHalfBuiltCatalogInTheDatabaseRefusesBothSweepsUntilExcluded() throws Exception {
        Path lake = dir.resolve("lake");
        FileCatalog cat = FileCatalog.create("incomplete_own", lake + "/");
        for (int i = 0; i < 10; i++) {
            FileCatalog.file(lake.resolve("main/test/k" + i + ".parquet"), OLD);
            cat.dataFile(1, "k" + i + ".parquet", true);
        }
        Path orphan = FileCatalog.file(lake.resolve("main/test/ducklake-orphan.parquet"), OLD);
        Path queued = FileCatalog.file(lake.resolve("main/test/ducklake-queued.parquet"), OLD);
        cat.queue("main/test/ducklake-queued.parquet", true, OLD);

        TestPostgres pg = TestPostgres.get();
        String half = pg.freshSchema("incomplete_half");
        try (Connection c = pg.connect()) {
            Catalogs.exec(c, "CREATE SCHEMA " + Sql.ident(half));
            Catalogs.exec(c, "CREATE TABLE " + Sql.qualified(half, "ducklake_metadata")
                    + " (key VARCHAR NOT NULL, value VARCHAR NOT NULL, scope VARCHAR, scope_id BIGINT)");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified(half, "ducklake_metadata")
                    + " VALUES ('version', '1.0', NULL, NULL), ('data_path', ?, NULL, NULL)")) {
                ps.setString(1, lake + "/");
                ps.executeUpdate();
            }
        }
        try {
            assertThatThrownBy(() -> orphans(cat, List.of()))
                    .isInstanceOfSatisfying(JanitorException.class, e -> {
                        assertThat(e.reason()).isEqualTo(Reason.UNSAFE_CATALOG_STATE);
                        assertThat(e.getMessage()).contains(half).contains("ducklake_data_file")
                                .contains("--exclude-catalog-schema").doesNotContain("does not exist");
                    });
            assertThatThrownBy(() -> cleanup(cat, List.of()))
                    .isInstanceOfSatisfying(JanitorException.class, e ->
                            assertThat(e.reason()).isEqualTo(Reason.UNSAFE_CATALOG_STATE));
            assertThat(orphan).as("nothing deleted").exists();
            assertThat(queued).exists();
            assertThat(cat.queueRows()).isEqualTo(1);

            DeleteOrphanFilesResult r = orphans(cat, List.of(half));
            assertThat(r.deleted()).as("waived: the sweep runs").isEqualTo(1);
            assertThat(r.excludedCatalogSchemas()).containsExactly(half);
            CleanupOldFilesResult q = cleanup(cat, List.of(half));
            assertThat(q.filesDeleted()).isEqualTo(1);
            assertThat(orphan).doesNotExist();
            assertThat(queued).doesNotExist();
        } finally {
            try (Connection c = pg.connect()) {
                Catalogs.exec(c, "DROP SCHEMA " + Sql.ident(half) + " CASCADE"); // other tests' sweeps consult this database
            }
        }
    }

    private static DeleteOrphanFilesResult orphans(FileCatalog cat, List<String> excluded) throws Exception {
        try (Connection c = TestPostgres.get().connect()) {
            DeleteOrphanFilesOptions o = DeleteOrphanFilesOptions.defaults(cat.schema).withDryRun(false)
                    .withConsult(ConsultOptions.defaults().withExcludedSchemas(excluded));
            return OrphanSweep.run(c, new LocalFileStore(), o, FileListener.NONE);
        }
    }

    private static CleanupOldFilesResult cleanup(FileCatalog cat, List<String> excluded) throws Exception {
        try (Connection c = TestPostgres.get().connect()) {
            CleanupOldFilesOptions o = CleanupOldFilesOptions.defaults(cat.schema).withDryRun(false)
                    .withConsult(ConsultOptions.defaults().withExcludedSchemas(excluded));
            return QueueSweep.run(c, new LocalFileStore(), o, FileListener.NONE);
        }
    }

    /**
     * The trial of 2026-12-06 (stop 39): a catalog lacking a column the sweeps read ({@code ducklake_data_file.path_is_relative}
     * dropped: an old or odd layout) failed both with the server's raw 42703 (exit 9). Another catalog of the database
     * lacking it is refused as a half-built one is (exit 6, naming schema, table and column, waived with
     * {@code --exclude-catalog-schema}); the swept catalog lacking it is refused the same way (not waivable).
     */
    @Test
    void aCatalogLackingAColumnTheSweepsReadIsRefusedNamingItUntilExcluded() throws Exception {
        Path lake = dir.resolve("lake");
        FileCatalog cat = FileCatalog.create("nocol_own", lake + "/");
        for (int i = 0; i < 10; i++) {
            FileCatalog.file(lake.resolve("main/test/k" + i + ".parquet"), OLD);
            cat.dataFile(1, "k" + i + ".parquet", true);
        }
        Path orphan = FileCatalog.file(lake.resolve("main/test/ducklake-orphan.parquet"), OLD);
        FileCatalog odd = FileCatalog.create("nocol_other", dir.resolve("elsewhere") + "/");
        TestPostgres pg = TestPostgres.get();
        try (Connection c = pg.connect()) {
            Catalogs.exec(c, "ALTER TABLE " + Sql.qualified(odd.schema, "ducklake_data_file") + " DROP COLUMN path_is_relative");
        }
        try {
            assertThatThrownBy(() -> orphans(cat, List.of()))
                    .isInstanceOfSatisfying(JanitorException.class, e -> {
                        assertThat(e.reason()).isEqualTo(Reason.UNSAFE_CATALOG_STATE);
                        assertThat(e.getMessage()).contains(odd.schema).contains("ducklake_data_file.path_is_relative")
                                .contains("--exclude-catalog-schema").doesNotContain("does not exist");
                    });
            assertThatThrownBy(() -> cleanup(cat, List.of()))
                    .isInstanceOfSatisfying(JanitorException.class, e ->
                            assertThat(e.reason()).isEqualTo(Reason.UNSAFE_CATALOG_STATE));
            assertThat(orphan).as("nothing deleted").exists();
            DeleteOrphanFilesResult r = orphans(cat, List.of(odd.schema));
            assertThat(r.deleted()).as("waived: the sweep runs").isEqualTo(1);

            // the swept catalog itself lacking the column: refused the same way, naming it
            assertThatThrownBy(() -> orphans(odd, List.of()))
                    .isInstanceOfSatisfying(JanitorException.class, e -> {
                        assertThat(e.reason()).isEqualTo(Reason.UNSAFE_CATALOG_STATE);
                        assertThat(e.getMessage()).contains(odd.schema).contains("ducklake_data_file.path_is_relative")
                                .doesNotContain("does not exist");
                    });
            assertThatThrownBy(() -> cleanup(odd, List.of()))
                    .isInstanceOfSatisfying(JanitorException.class, e -> {
                        assertThat(e.reason()).isEqualTo(Reason.UNSAFE_CATALOG_STATE);
                        assertThat(e.getMessage()).contains("ducklake_data_file.path_is_relative");
                    });
            // through the command, whose inspection runs first: the same refusal, not the server's 42703 (exit 9)
            for (String command : List.of("delete-orphan-files", "cleanup-old-files")) {
                dev.ducklake.janitor.testsupport.CliRun run = dev.ducklake.janitor.testsupport.CliRun.run(command, "--catalog",
                        pg.url(), "--metadata-schema", odd.schema, "--dry-run", "--output", "json");
                assertThat(run.exitCode()).as(run.toString()).isEqualTo(6);
                assertThat(run.json().get("message").asText()).contains("ducklake_data_file.path_is_relative");
            }
        } finally {
            try (Connection c = pg.connect()) {
                Catalogs.exec(c, "DROP SCHEMA " + Sql.ident(odd.schema) + " CASCADE"); // other tests' sweeps consult this database
            }
        }
    }
}
