package dev.ducklake.janitor.interop;

import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.DeleteOutcome;
import dev.ducklake.janitor.storage.ForwardingStore;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.testsupport.Catalogs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27, against real DuckLake 1.5.5: cleanup-old-files' re-check reads only the file rows a consulted catalog
 * committed since the known set was read, those whose id is above the catalog's highest then (DuckLake numbers a
 * commit's files from its snapshot's {@code next_file_id}). Here another tenant's catalog in the same database
 * registers two of this catalog's queued files with {@code ducklake_add_data_files} at the run's first delete; both are
 * kept, the other queued files go, and the other tenant reads its rows from them.
 */
class CleanupRegisteredDuringRunInteropTest {

    private InteropCatalog mine;
    private InteropCatalog other;

    @AfterEach
    void cleanup() {
        for (InteropCatalog l : new InteropCatalog[] {mine, other}) {
            if (l != null) {
                l.deleteDataDir();
            }
        }
    }

    @Test
    void filesAnotherTenantRegistersWithDuckLakeDuringTheRunAreKept() throws Exception {
        mine = InteropCatalog.fresh("cof_reg_mine");
        other = InteropCatalog.fresh("cof_reg_other", mine.duckLake());
        // four files of one row each, then the rows deleted and the snapshots expired: four queued files
        mine.run(RealDuckLake.program().attach(mine.attach().inliningRowLimit(0))
                .sql("CREATE TABLE lake.t(id INTEGER)", "INSERT INTO lake.t VALUES (1)", "INSERT INTO lake.t VALUES (2)",
                        "INSERT INTO lake.t VALUES (3)", "INSERT INTO lake.t VALUES (4)", "DELETE FROM lake.t",
                        "CALL ducklake_expire_snapshots('lake', older_than => now())")).assertOk();
        other.run(RealDuckLake.program().attach(other.attach().inliningRowLimit(0))
                .sql("CREATE TABLE lake.t(id INTEGER)", "INSERT INTO lake.t VALUES (100)")).assertOk();
        String queue = Sql.qualified(mine.schema(), "ducklake_files_scheduled_for_deletion");
        List<Path> queued = new ArrayList<>();
        long otherMaxAtStart;
        try (Connection c = mine.connect(); Statement st = c.createStatement()) {
            Catalogs.exec(c, "UPDATE " + queue + " SET schedule_start = schedule_start - interval '3 days'");
            try (ResultSet rs = st.executeQuery("SELECT path FROM " + queue + " WHERE path_is_relative ORDER BY path")) {
                while (rs.next()) {
                    queued.add(mine.dataDir().resolve(rs.getString(1)));
                }
            }
            otherMaxAtStart = Catalogs.scalar(c, "SELECT max(data_file_id) FROM "
                    + Sql.qualified(other.schema(), "ducklake_data_file"));
        }
        assertThat(queued).hasSize(4).allSatisfy(p -> assertThat(p).exists());

        // at the first batch's delete, the other tenant registers the two queued files that batch does not hold
        List<Path> registered = new ArrayList<>();
        AtomicReference<RealDuckLake.Result> added = new AtomicReference<>();
        ForwardingStore store = new ForwardingStore(new LocalFileStore()) {
            @Override
            public DeleteOutcome delete(List<String> addresses) throws StorageException {
                return delete(addresses, false);
            }

            @Override
            public DeleteOutcome delete(List<String> addresses, boolean measure) throws StorageException {
                if (added.get() == null) {
                    List<String> calls = new ArrayList<>();
                    for (Path p : queued) {
                        if (registered.size() < 2 && addresses.stream().noneMatch(a -> a.endsWith(p.getFileName().toString()))) {
                            registered.add(p);
                            calls.add("CALL ducklake_add_data_files('lake', 't', '" + p + "')");
                        }
                    }
                    added.set(other.run(RealDuckLake.program().attach(other.attach())
                            .sql(calls.toArray(new String[0]))));
                }
                return inner.delete(addresses, measure);
            }
        };
        CleanupOldFilesResult r;
        try (Connection c = mine.connect()) {
            r = QueueSweep.run(c, store, CleanupOldFilesOptions.builder(mine.schema()).dryRun(false)
                    .batchSize(1).deleteConcurrency(1).build(), FileListener.NONE);
        }

        assertThat(added.get()).isNotNull();
        added.get().assertOk();
        assertThat(registered).hasSize(2);
        try (Connection c = mine.connect()) {
            assertThat(Catalogs.scalar(c, "SELECT min(data_file_id) FROM " + Sql.qualified(other.schema(), "ducklake_data_file")
                    + " WHERE NOT path_is_relative")).as("DuckLake numbered the registered files above the ids at the start")
                    .isGreaterThan(otherMaxAtStart);
        }
        for (Path p : registered) {
            assertThat(p).as("registered by the other tenant during the run").exists();
        }
        assertThat(queued.stream().filter(p -> !registered.contains(p))).allSatisfy(p -> assertThat(p).doesNotExist());
        assertThat(r.filesDeleted()).isEqualTo(2);
        assertThat(r.keptLive()).isEqualTo(2);
        RealDuckLake.Result read = other.run(RealDuckLake.program().attach(other.attach())
                .query("t", "SELECT count(*) FROM lake.t"));
        assertThat(read.rows("t")).containsExactly(List.of("3"));
    }
}
