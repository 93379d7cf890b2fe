package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.cleanupoldfiles.QueueSweep;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunRecorder;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.storage.DeleteOutcome;
import dev.ducklake.janitor.storage.ForwardingStore;
import dev.ducklake.janitor.storage.LocalFileStore;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.SilentPeer;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A survey that fails over a database {@code --also-catalog} names (here: it holds no catalog, exit 4) closes the
 * connection it opened there: it was not yet kept by the {@link ConsultedCatalogs}, so nothing else would (a library
 * caller surveying on a schedule leaked one server session per failed run; found by the review of the survey's split),
 * and a stop requested while it logs in to another database ends that login.
 */
class SurveyConnectionsTest {

    @TempDir
    Path dir;

    @Test
    void aFailedSurveyOfANamedDatabaseLeavesNoSessionThere() throws Exception {
        TestPostgres pg = TestPostgres.get();
        String db = "survey_leak_" + ProcessHandle.current().pid();
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db));
            st.execute("CREATE DATABASE " + Sql.ident(db));
        }
        try {
            FileCatalog cat = FileCatalog.create("survey_leak", dir.resolve("lake") + "/");
            ConnectionSpec other = pg.spec().withDatabase(db);
            ConsultOptions o = ConsultOptions.defaults().withConsultServer(false)
                    .withAlsoCatalogs(List.of(new ConnectionSpec.CatalogReference(other, null)));
            try (Connection c = pg.connect()) {
                assertThatThrownBy(() -> ConsultedCatalogs.find(c, cat.schema, CatalogFiles.resolver(c, cat.schema, null), o,
                        new RunRecorder(ProgressListener.NONE)))
                        .isInstanceOfSatisfying(JanitorException.class, e -> assertThat(e.reason()).isEqualTo(Reason.NOT_A_CATALOG));
                long sessions = -1;
                for (int i = 0; i < 50 && sessions != 0; i++) {
                    sessions = sessionsOn(c, db);
                    if (sessions != 0) {
                        Thread.sleep(100);
                    }
                }
                assertThat(sessions).as("sessions left on the named database").isZero();
            }
        } finally {
            try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
            }
        }
    }

    /**
     * A library caller's requestStop() during the survey's login to another database (here a silent peer named by
     * {@code --also-catalog}, whose login waits for its 60 s connect_timeout) ends that login at once: the storage
     * operations pass their run's stop condition to the survey (before, only the CLI's JVM-wide abort did).
     */
    @Test
    void aStopRequestedDuringALoginToAnotherDatabaseEndsIt() throws Exception {
        FileCatalog cat = FileCatalog.create("survey_stop", dir.resolve("lake") + "/");
        AtomicBoolean stop = new AtomicBoolean();
        try (SilentPeer peer = SilentPeer.start(); Connection c = TestPostgres.get().connect()) {
            ConnectionSpec silent = ConnectionSpec.parse("postgresql://janitor@127.0.0.1:" + peer.port()
                    + "/lake?connect_timeout=60", Map.of(), null);
            ConsultOptions o = ConsultOptions.defaults().withConsultServer(false)
                    .withAlsoCatalogs(List.of(new ConnectionSpec.CatalogReference(silent, "lake")));
            CompletableFuture<ConsultedCatalogs> survey = CompletableFuture.supplyAsync(() -> {
                try {
                    return ConsultedCatalogs.find(c, cat.schema, CatalogFiles.resolver(c, cat.schema, null), o,
                            new RunRecorder(ProgressListener.NONE), stop::get);
                } catch (JanitorException | java.sql.SQLException e) {
                    throw new CompletionException(e);
                }
            });
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (peer.accepted().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(peer.accepted()).as("the survey is logging in to the other database").isNotEmpty();
            Thread.sleep(300);
            long t0 = System.nanoTime();
            stop.set(true);
            ConnectionSpec.abortStoppedConnects(); // what an operation's requestStop() does after setting its flag
            assertThatThrownBy(() -> survey.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOfSatisfying(JanitorException.class, e -> {
                        assertThat(e.reason()).isEqualTo(Reason.CONNECTION);
                        assertThat(ConnectionSpec.loginStopped(e)).as(e.getMessage()).isTrue();
                    });
            assertThat((System.nanoTime() - t0) / 1e9).as("seconds after the stop request").isLessThan(3);
        }
    }

    /**
     * The census ({@link CatalogCensus}) keeps its connection to a database of the server without a consulted catalog
     * open from one batch of cleanup-old-files to the next (a login per database and batch was 90% of a cleanup on a
     * server of 200 databases), and closes it at the run's end: after a run that completes, and after one whose store
     * fails at the second batch.
     */
    @Test
    void theCensusKeepsItsConnectionsForTheRunAndNoLonger() throws Exception {
        TestPostgres pg = TestPostgres.get();
        String db = "census_keep_" + ProcessHandle.current().pid();
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db));
            st.execute("CREATE DATABASE " + Sql.ident(db));
        }
        try {
            for (boolean fail : new boolean[] {false, true}) {
                Path lake = dir.resolve("lake-" + fail);
                FileCatalog cat = FileCatalog.create("census_keep", lake + "/");
                for (int i = 0; i < 3; i++) {
                    FileCatalog.file(lake.resolve("main/test/f" + i + ".parquet"), Duration.ofDays(10));
                    cat.queue("main/test/f" + i + ".parquet", true, Duration.ofDays(10));
                }
                List<Long> during = new ArrayList<>();
                ForwardingStore store = new ForwardingStore(new LocalFileStore(lake)) {
                    @Override
                    public DeleteOutcome delete(List<String> addresses) throws StorageException {
                        return delete(addresses, false);
                    }

                    @Override
                    public DeleteOutcome delete(List<String> addresses, boolean measure) throws StorageException {
                        try (Connection c = pg.connect()) {
                            during.add(sessionsOn(c, db));
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                        if (fail && during.size() == 2) {
                            throw new IllegalStateException("the store fails at the second batch");
                        }
                        return inner.delete(addresses, measure);
                    }
                };
                CleanupOldFilesOptions o = CleanupOldFilesOptions.builder(cat.schema).dryRun(false).batchSize(1)
                        .deleteConcurrency(1).consult(ConsultOptions.defaults().withServer(pg.spec())).build();
                try (Connection c = pg.connect()) {
                    if (fail) {
                        assertThatThrownBy(() -> QueueSweep.run(c, store, o, FileListener.NONE))
                                .hasStackTraceContaining("the store fails at the second batch");
                    } else {
                        assertThat(QueueSweep.run(c, store, o, FileListener.NONE).filesDeleted()).isEqualTo(3);
                    }
                    assertThat(during).as("sessions on the catalog-less database at each batch's deletes (fail: %s)", fail)
                            .startsWith(1L, 1L);
                    long sessions = -1;
                    for (int i = 0; i < 50 && sessions != 0; i++) {
                        sessions = sessionsOn(c, db);
                        if (sessions != 0) {
                            Thread.sleep(100);
                        }
                    }
                    assertThat(sessions).as("sessions left after the run (fail: %s)", fail).isZero();
                }
            }
        } finally {
            try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
            }
        }
    }

    /**
     * A connection the census kept whose session ends during the run is replaced, not a failure of the run: after
     * {@code pg_terminate_backend} the next check logs in to the database again (and keeps that connection); after a
     * {@code DROP DATABASE ... WITH (FORCE)} the database is gone from {@code pg_database} and nothing is looked at there.
     */
    @Test
    void aKeptCensusConnectionThatEndsIsReplacedOrForgotten() throws Exception {
        TestPostgres pg = TestPostgres.get();
        String db = "census_end_" + ProcessHandle.current().pid();
        try {
            for (String end : List.of("terminate", "drop")) {
                try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                    st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
                    st.execute("CREATE DATABASE " + Sql.ident(db));
                }
                Path lake = dir.resolve("lake-" + end);
                FileCatalog cat = FileCatalog.create("census_end", lake + "/");
                for (int i = 0; i < 3; i++) {
                    FileCatalog.file(lake.resolve("main/test/f" + i + ".parquet"), Duration.ofDays(10));
                    cat.queue("main/test/f" + i + ".parquet", true, Duration.ofDays(10));
                }
                List<Long> during = new ArrayList<>();
                ForwardingStore store = new ForwardingStore(new LocalFileStore(lake)) {
                    @Override
                    public DeleteOutcome delete(List<String> addresses) throws StorageException {
                        return delete(addresses, false);
                    }

                    @Override
                    public DeleteOutcome delete(List<String> addresses, boolean measure) throws StorageException {
                        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                            during.add(sessionsOn(c, db));
                            if (during.size() == 1 && end.equals("drop")) {
                                st.execute("DROP DATABASE " + Sql.ident(db) + " WITH (FORCE)");
                            } else if (during.size() == 1) {
                                try (PreparedStatement ps = c.prepareStatement("SELECT count(pg_terminate_backend(pid))"
                                        + " FROM pg_catalog.pg_stat_activity WHERE datname = ?")) {
                                    ps.setString(1, db);
                                    ps.executeQuery().close();
                                }
                            }
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                        return inner.delete(addresses, measure);
                    }
                };
                CleanupOldFilesOptions o = CleanupOldFilesOptions.builder(cat.schema).dryRun(false).batchSize(1)
                        .deleteConcurrency(1).consult(ConsultOptions.defaults().withServer(pg.spec())).build();
                try (Connection c = pg.connect()) {
                    var r = QueueSweep.run(c, store, o, FileListener.NONE);
                    assertThat(r.filesDeleted()).as("%s", r).isEqualTo(3);
                    assertThat(r.stoppedDuring()).isNull();
                }
                assertThat(during).as("sessions on the database at each batch's deletes (%s)", end)
                        .containsExactly(1L, end.equals("drop") ? 0L : 1L, end.equals("drop") ? 0L : 1L);
            }
        } finally {
            try (Connection c = pg.connect(); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + Sql.ident(db) + " WITH (FORCE)");
            }
        }
    }

    private static long sessionsOn(Connection c, String db) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE datname = ?")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
