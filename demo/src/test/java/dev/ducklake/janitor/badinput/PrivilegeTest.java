package dev.ducklake.janitor.badinput;

import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.CatalogInvariants;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Missing privileges (issue 5): a clear error, exit 8, nothing half-done; and the least privileges the README
 * states per command are enough.
 */
class PrivilegeTest {

    private static final String PASSWORD = "role-pw-1";

    private final TestPostgres pg = TestPostgres.get();
    private final List<String> roles = new ArrayList<>();

    private String role(String prefix, String schema, String... grants) throws Exception {
        String role = prefix + "_" + ProcessHandle.current().pid() + "_" + roles.size();
        roles.add(role);
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute("DROP ROLE IF EXISTS " + Sql.ident(role));
            st.execute("CREATE ROLE " + Sql.ident(role) + " LOGIN PASSWORD '" + PASSWORD + "'");
            for (String g : grants) {
                st.execute(g.replace("$S", Sql.ident(schema)).replace("$R", Sql.ident(role)));
            }
        }
        return role;
    }

    private String urlAs(String role) {
        return "jdbc:postgresql://" + pg.spec().host() + ":" + pg.spec().port() + "/" + pg.spec().database() + "?user=" + role
                + "&password=" + PASSWORD;
    }

    @AfterEach
    void dropRoles() throws Exception {
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            for (String r : roles) {
                st.execute("DROP OWNED BY " + Sql.ident(r) + " CASCADE");
                st.execute("DROP ROLE IF EXISTS " + Sql.ident(r));
            }
        }
    }

    private FaultCatalog catalog(String prefix) throws Exception {
        try (Connection c = pg.connect()) {
            return FaultCatalog.build(c, pg.freshSchema(prefix), 30);
        }
    }

    private CliRun run(String role, FaultCatalog cat, String... mode) {
        List<String> args = new ArrayList<>(List.of("drop-orphan-inline-tables", "--catalog", urlAs(role), "--metadata-schema", cat.schema));
        args.addAll(List.of(mode));
        return CliRun.run(args.toArray(new String[0]));
    }

    private void assertDenied(CliRun run, FaultCatalog cat) throws Exception {
        assertThat(run.exitCode()).as("permission denied is exit 8; stderr: %s", run.err()).isEqualTo(8);
        assertThat(run.err()).contains("error: ").contains("privilege").contains("hint: Grant the privileges")
                .doesNotContain("\tat ").doesNotContain(PASSWORD);
        try (Connection c = pg.connect()) {
            CatalogInvariants.assertUnchanged(c, cat.before);
        }
    }

    @Test
    void userWithoutAnyPrivilegeOnTheSchemaIsExit8() throws Exception {
        FaultCatalog cat = catalog("priv_none");
        String role = role("jan_none", cat.schema);
        assertDenied(run(role, cat, "--dry-run"), cat);
        assertDenied(run(role, cat, "--yes"), cat);
    }

    @Test
    void readOnlyUserCanDryRunButNotExecute() throws Exception {
        FaultCatalog cat = catalog("priv_ro");
        String role = role("jan_ro", cat.schema, "GRANT USAGE ON SCHEMA $S TO $R", "GRANT SELECT ON ALL TABLES IN SCHEMA $S TO $R");
        CliRun dry = run(role, cat, "--dry-run");
        assertThat(dry.exitCode()).as("the dry run needs only SELECT; stderr: %s", dry.err()).isZero();
        assertDenied(run(role, cat, "--yes"), cat);
    }

    @Test
    void userWhoMayEditTheRegistryButNotLockTheTablesIsExit8() throws Exception {
        FaultCatalog cat = catalog("priv_reg");
        String role = role("jan_reg", cat.schema, "GRANT USAGE ON SCHEMA $S TO $R", "GRANT SELECT ON ALL TABLES IN SCHEMA $S TO $R",
                "GRANT UPDATE, DELETE ON $S.ducklake_inlined_data_tables TO $R");
        assertDenied(run(role, cat, "--yes"), cat);
    }

    @Test
    void userWithoutDropPrivilegeIsExit8AndNothingIsHalfDone() throws Exception {
        FaultCatalog cat = catalog("priv_nodrop");
        // may lock every table (UPDATE) and edit the registry, but owns nothing, so DROP TABLE fails
        String role = role("jan_nodrop", cat.schema, "GRANT USAGE ON SCHEMA $S TO $R",
                "GRANT SELECT, UPDATE ON ALL TABLES IN SCHEMA $S TO $R", "GRANT DELETE ON $S.ducklake_inlined_data_tables TO $R");
        CliRun run = run(role, cat, "--yes", "--batch-size", "10");
        assertDenied(run, cat);
        assertThat(run.err()).contains("Nothing of the failed batch was changed").contains("must be owner");
    }

    @Test
    void theLeastPrivilegesTheReadmeStatesAreEnoughToExecute() throws Exception {
        FaultCatalog cat = catalog("priv_least");
        String role = role("jan_least", cat.schema, "GRANT USAGE ON SCHEMA $S TO $R",
                "GRANT SELECT ON $S.ducklake_metadata, $S.ducklake_snapshot, $S.ducklake_table, $S.ducklake_inlined_data_tables TO $R",
                // the snapshot-consistency check (issue 10) reads every snapshot-ranged table
                "GRANT SELECT ON $S.ducklake_snapshot_changes, $S.ducklake_schema, $S.ducklake_view, $S.ducklake_tag,"
                        + " $S.ducklake_column_tag, $S.ducklake_data_file, $S.ducklake_delete_file, $S.ducklake_column,"
                        + " $S.ducklake_partition_info, $S.ducklake_sort_info, $S.ducklake_macro, $S.ducklake_schema_versions TO $R",
                "GRANT UPDATE, DELETE ON $S.ducklake_inlined_data_tables TO $R");
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            for (String t : cat.before.tableNames()) {
                if (t.startsWith("ducklake_inlined_data_")) {
                    st.execute("ALTER TABLE " + Sql.qualified(cat.schema, t) + " OWNER TO " + Sql.ident(role));
                }
            }
        }
        CliRun run = run(role, cat, "--yes");
        assertThat(run.exitCode()).as("stderr: %s", run.err()).isZero();
        try (Connection c = pg.connect()) {
            assertThat(cat.check(c)).hasSize(cat.orphans.size());
        }
    }
}
