package dev.ducklake.janitor.maintain;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The grants docs/maintain.md documents for the run ledger, as an unprivileged login role: reading creates nothing and
 * needs nothing when the table is absent; creating needs CREATE (on the database, or owning the schema); a table the DBA
 * created needs only USAGE on its schema and SELECT, INSERT, UPDATE on it.
 */
class RunLedgerPrivilegesTest {

    static final String ROLE = "janitor_ledger_probe";
    static ConnectionSpec probe;

    @BeforeAll
    static void role() throws Exception {
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
            st.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = '" + ROLE + "') THEN"
                    + " CREATE ROLE " + ROLE + " LOGIN; END IF; END $$");
        }
        ConnectionSpec s = TestPostgres.get().spec();
        probe = ConnectionSpec.parse("postgresql://" + ROLE + "@" + s.host() + ":" + s.port() + "/" + s.database(), Map.of(), null);
    }

    static void admin(String sql) throws Exception {
        try (Connection c = TestPostgres.get().connect(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    @Test
    void withoutCreateTheWriteIsPermissionDeniedNamingTheGrantAndOwningTheSchemaIsEnough() throws Exception {
        String schema = TestPostgres.get().freshSchema("ledger_grant");
        RunLedger ledger = new RunLedger(schema, "test");
        RunLedger.Due first = ledger.due(probe, "lake", "public", "delete-orphan-files", Duration.ofDays(7));
        assertThat(first.due()).as("no ledger: due").isTrue();
        assertThat(first.lastSuccessStart()).isNull();

        assertThatThrownBy(() -> ledger.recordSuccess(probe, "lake", "public", "delete-orphan-files", first.now()))
                .isInstanceOfSatisfying(JanitorException.class, e -> {
                    assertThat(e.reason()).isEqualTo(JanitorException.Reason.PERMISSION_DENIED);
                    assertThat(e.getMessage()).contains(schema + ".ducklake_janitor_runs").contains("CREATE on the database");
                });

        admin("CREATE SCHEMA \"" + schema + "\" AUTHORIZATION " + ROLE);
        ledger.recordSuccess(probe, "lake", "public", "delete-orphan-files", first.now());
        RunLedger.Due next = ledger.due(probe, "lake", "public", "delete-orphan-files", Duration.ofDays(7));
        assertThat(next.due()).isFalse();
        assertThat(next.lastSuccessStart()).isEqualTo(first.now());
        assertThat(next.nextDue()).isEqualTo(first.now().plus(Duration.ofDays(7)).minus(Duration.ofMinutes(10)));
        assertThat(ledger.due(probe, "lake", "public", "delete-orphan-files", null).due()).as("no every: always due").isTrue();
        assertThat(ledger.due(probe, "other", "public", "delete-orphan-files", Duration.ofDays(7)).due())
                .as("per configured catalog name").isTrue();
    }

    @Test
    void aTableTheDbaCreatedNeedsOnlyUsageAndSelectInsertUpdate() throws Exception {
        String schema = TestPostgres.get().freshSchema("ledger_dba");
        admin("CREATE SCHEMA \"" + schema + "\"");
        admin("CREATE TABLE \"" + schema + "\".ducklake_janitor_runs (catalog text NOT NULL, metadata_schema text NOT NULL, "
                + "step text NOT NULL, last_success_started_at timestamptz NOT NULL, last_success_finished_at timestamptz NOT NULL, "
                + "tool_version text, PRIMARY KEY (catalog, metadata_schema, step))");
        admin("GRANT USAGE ON SCHEMA \"" + schema + "\" TO " + ROLE);
        admin("GRANT SELECT, INSERT, UPDATE ON \"" + schema + "\".ducklake_janitor_runs TO " + ROLE);
        RunLedger ledger = new RunLedger(schema, "test");
        Instant t0 = ledger.due(probe, "lake", "s", "cleanup-old-files", Duration.ofDays(1)).now();
        // CREATE TABLE IF NOT EXISTS alone would be refused here (PostgreSQL checks CREATE on the schema first)
        ledger.recordSuccess(probe, "lake", "s", "cleanup-old-files", t0);
        ledger.recordSuccess(probe, "lake", "s", "cleanup-old-files", t0.plusSeconds(60));
        assertThat(ledger.due(probe, "lake", "s", "cleanup-old-files", Duration.ofDays(1)).lastSuccessStart())
                .as("the upsert keeps the latest").isEqualTo(t0.plusSeconds(60));
        // an older success recorded late (two runs overlapping) does not move the time back
        ledger.recordSuccess(probe, "lake", "s", "cleanup-old-files", t0);
        assertThat(ledger.due(probe, "lake", "s", "cleanup-old-files", Duration.ofDays(1)).lastSuccessStart()).isEqualTo(t0.plusSeconds(60));
    }
}
