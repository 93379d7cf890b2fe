package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesResult;
import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.PgBouncer;
import dev.ducklake.janitor.testsupport.PgBouncer.PoolMode;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The survey of the server's databases logs in to {@code template1} (a template that allows connections can hold a
 * DuckLake catalog, which must be read before a file is deleted), and the census probes it before each batch's deletes.
 * Through a pooler, a login closed the plain way leaves its server session in the pool for {@code server_idle_timeout}
 * (PgBouncer: 600 s), and every {@code CREATE DATABASE} (a copy of {@code template1}) fails meanwhile ("source database
 * "template1" is being accessed by other users"). The janitor closes its template connections inside an open
 * transaction, which makes the pooler close the server session too: a plain {@code CREATE DATABASE} right after a
 * storage run through a session pool succeeds.
 */
class TemplateSessionsThroughPoolerTest {

    private static PgBouncer session;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        PgBouncer.assumeInstalled();
        session = PgBouncer.start(PoolMode.SESSION);
    }

    @AfterAll
    static void stop() {
        if (session != null) {
            session.close();
        }
    }

    @Test
    void aStorageRunThroughASessionPoolLeavesNoServerSessionInTemplate1() throws Exception {
        Path root = Files.createDirectories(dir.resolve("lake"));
        FileCatalog cat = FileCatalog.create("pgb_tmpl", root + "/");
        Duration old = Duration.ofDays(10);
        Path queued = FileCatalog.file(root.resolve("main/test/q.parquet"), old);
        cat.queue("main/test/q.parquet", true, old);
        ConnectionSpec pooled = session.spec();

        // a dry run: the survey's login to template1
        run(pooled, cat, true);
        createDatabaseFromTemplate1("after the survey of a dry run");

        // an execute run: the survey's login and the census's probe before the batch's deletes
        CleanupOldFilesResult r = run(pooled, cat, false);
        assertThat(r.filesDeleted()).isEqualTo(1);
        assertThat(queued).doesNotExist();
        createDatabaseFromTemplate1("after the census's probes of an execute run");
    }

    private static CleanupOldFilesResult run(ConnectionSpec pooled, FileCatalog cat, boolean dryRun) throws Exception {
        try (Connection c = pooled.openRaw(); LocalFileStore store = new LocalFileStore()) {
            return QueueSweep.run(c, store, CleanupOldFilesOptions.builder(cat.schema).dryRun(dryRun).batchSize(1)
                    .deleteConcurrency(1).consult(ConsultOptions.defaults().withServer(pooled)).build(), FileListener.NONE);
        }
    }

    /** A plain CREATE DATABASE (a copy of template1) on the server itself, and its DROP. */
    private static void createDatabaseFromTemplate1(String when) throws SQLException {
        String db = "pgb_tmpl_copy_" + ProcessHandle.current().pid();
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
            try {
                st.execute("CREATE DATABASE " + Sql.ident(db));
            } catch (SQLException e) {
                StringBuilder who = new StringBuilder();
                try (var rs = st.executeQuery("SELECT pid, state, backend_start, xact_start, application_name, client_port,"
                        + " left(query, 80) FROM pg_stat_activity WHERE datname = 'template1'")) {
                    while (rs.next()) {
                        for (int i = 1; i <= 7; i++) {
                            who.append(rs.getString(i)).append(i < 7 ? " | " : "\n");
                        }
                    }
                }
                throw new AssertionError("CREATE DATABASE from template1 failed " + when + ": " + e.getMessage()
                        + "; sessions in template1: " + who + "\nthe pooler's lines on template1:\n" + session.log().lines()
                        .filter(l -> l.contains("template1")).collect(java.util.stream.Collectors.joining("\n")), e);
            } finally {
                st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
            }
        }
    }
}
