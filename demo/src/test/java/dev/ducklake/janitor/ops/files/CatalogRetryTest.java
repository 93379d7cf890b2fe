package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.ops.runtime.RunBudget;
import dev.ducklake.janitor.ops.runtime.RunRecorder;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.TestPostgres;
import dev.ducklake.janitor.testsupport.Watchdogs;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The storage commands' catalog transactions under the one retry loop ({@link CatalogRetry}), on a real session: what
 * a failed attempt did is rolled back and the session stays in its transaction mode; what is not the policy's to
 * judge passes through; a stop request refuses the backoff.
 */
class CatalogRetryTest {

    /** A statement that fails with {@code sqlstate} the first {@code times} times it runs (a sequence counts). */
    private static String failing(String schema, int times, String sqlstate) {
        return "DO $d$ BEGIN IF nextval('" + Sql.qualified(schema, "fault_seq") + "') <= " + times + " THEN RAISE EXCEPTION USING ERRCODE = '"
                + sqlstate + "', MESSAGE = 'injected'; END IF; END $d$";
    }

    private static String schema() throws SQLException {
        String schema = TestPostgres.get().freshSchema("catretry");
        try (Connection c = TestPostgres.get().connect()) {
            Catalogs.exec(c, "CREATE SCHEMA IF NOT EXISTS " + Sql.ident(schema));
            Catalogs.exec(c, "CREATE TABLE " + Sql.qualified(schema, "t") + " (x int)");
            Catalogs.exec(c, "CREATE SEQUENCE " + Sql.qualified(schema, "fault_seq"));
        }
        return schema;
    }

    private static RunControl control(AtomicBoolean stop) {
        return new RunControl(new RunRecorder(ProgressListener.NONE), new RunBudget(null, stop), 0, null, null);
    }

    @Test
    void aRetryableFailureIsRolledBackAndTheTransactionRunsAgain() throws Exception {
        String schema = schema();
        RunControl control = control(new AtomicBoolean());
        AtomicInteger attempts = new AtomicInteger();
        try (Connection c = TestPostgres.get().connect()) {
            c.setAutoCommit(false);
            int v = CatalogRetry.run(c, control, "the test unit", () -> {
                attempts.incrementAndGet();
                Catalogs.exec(c, "INSERT INTO " + Sql.qualified(schema, "t") + " VALUES (1)");
                Catalogs.exec(c, failing(schema, 2, "40P01"));
                c.commit();
                return 7;
            });
            assertThat(v).isEqualTo(7);
            assertThat(c.getAutoCommit()).as("the command's transaction mode is kept").isFalse();
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + Sql.qualified(schema, "t")))
                    .as("the failed attempts' inserts were rolled back").isEqualTo(1);
            c.rollback();
        }
        assertThat(attempts).hasValue(3);
        assertThat(control.figures().retries()).isEqualTo(2);
        assertThat(control.figures().warnings()).anySatisfy(w -> assertThat(w)
                .isEqualTo("the test unit: attempt 1 failed with SQLSTATE 40P01; rolled back, retrying in 200 ms"));
    }

    @Test
    void aFailureNotRetriedAndTheUnitsOwnErrorPassThroughUnchanged() throws Exception {
        String schema = schema();
        RunControl control = control(new AtomicBoolean());
        AtomicInteger attempts = new AtomicInteger();
        try (Connection c = TestPostgres.get().connect()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> CatalogRetry.run(c, control, "the test unit", () -> {
                attempts.incrementAndGet();
                Catalogs.exec(c, failing(schema, 1, "23505"));
                return 0;
            })).isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23505"));
            JanitorException mine = new JanitorException(Reason.POOLER_MODE, "moved off the locked session");
            assertThatThrownBy(() -> CatalogRetry.run(c, control, "the test unit", () -> {
                attempts.incrementAndGet();
                Catalogs.exec(c, "INSERT INTO " + Sql.qualified(schema, "t") + " VALUES (1)");
                throw mine;
            })).isSameAs(mine);
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + Sql.qualified(schema, "t"))).as("rolled back").isZero();
        }
        assertThat(attempts).as("one attempt each").hasValue(2);
        assertThat(control.figures().retries()).isZero();
    }

    /** A stop request refuses the backoff: the unit ends as {@link CatalogRetry.Stopped}, the failure its cause. */
    @Test
    void aStopRequestRefusesTheBackoffAndTheUnitEndsAsStopped() throws Exception {
        String schema = schema();
        AtomicBoolean stop = new AtomicBoolean(true);
        RunControl control = control(stop);
        AtomicInteger attempts = new AtomicInteger();
        try (Connection c = TestPostgres.get().connect()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> CatalogRetry.run(c, control, "the test unit", () -> {
                attempts.incrementAndGet();
                Catalogs.exec(c, failing(schema, 1, "40001"));
                return 0;
            })).isInstanceOfSatisfying(CatalogRetry.Stopped.class, e -> assertThat(e.getCause())
                    .isInstanceOfSatisfying(SQLException.class, cause -> assertThat(cause.getSQLState()).isEqualTo("40001")));
            assertThat(c.getAutoCommit()).as("rolled back, the session's mode kept").isFalse();
        }
        assertThat(attempts).hasValue(1);
        assertThat(control.figures().retries()).isZero();
        assertThat(control.figures().warnings()).anySatisfy(w -> assertThat(w)
                .contains("the test unit failed with SQLSTATE 40001; not retried: the run was asked to stop"))
                .as("one true line: not also 'retrying in 200 ms' (stop 39)").noneSatisfy(w -> assertThat(w).contains("retrying in"));
    }

    /**
     * The stop's cancel, sent before a catalog transaction began and arriving late (CI of stop 40), ended it as if the
     * stop had cut it: a cleanup batch whose files were deleted kept its queue rows. It runs again instead.
     */
    @Test
    void aTransactionBegunAfterTheStopsCancelWasSentRunsAgainPastIt() throws Exception {
        String schema = schema();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger attempts = new AtomicInteger();
        try (dev.ducklake.janitor.ops.runtime.MaintenanceRun run = dev.ducklake.janitor.ops.runtime.MaintenanceRun.open(
                TestPostgres.get().spec(), dev.ducklake.janitor.ops.runtime.RunOptions.defaults(), ProgressListener.NONE, stop)) {
            Watchdogs.stopAndAwaitCancel(run, stop);
            RunControl control = RunControl.of(run);
            Connection c = run.session().connection();
            c.setAutoCommit(false);
            int v = CatalogRetry.run(c, control, "deleting the queue rows of batch 1", () -> {
                attempts.incrementAndGet();
                Catalogs.exec(c, "INSERT INTO " + Sql.qualified(schema, "t") + " VALUES (1)");
                Catalogs.exec(c, failing(schema, 1, "57014"));
                c.commit();
                return 7;
            });
            assertThat(v).isEqualTo(7);
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + Sql.qualified(schema, "t")))
                    .as("the cancelled attempt's insert was rolled back").isEqualTo(1);
            c.rollback();
            c.setAutoCommit(true);
        }
        assertThat(attempts).hasValue(2);
    }
}
