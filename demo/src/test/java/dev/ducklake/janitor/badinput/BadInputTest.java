package dev.ducklake.janitor.badinput;

import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.CatalogInvariants;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad input (issue 5): each case gets a clear message, its own documented exit code, no stack trace, and leaves
 * the catalog exactly as it was.
 */
class BadInputTest {

    private final TestPostgres pg = TestPostgres.get();

    private static void assertClean(CliRun run, int exitCode, String... messageParts) {
        assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isEqualTo(exitCode);
        assertThat(run.err()).as("a clear error line and a hint").contains("error: ").contains("hint: ");
        for (String part : messageParts) {
            assertThat(run.err()).as("the message says what happened").contains(part);
        }
        assertThat(run.all()).as("no stack trace by default").doesNotContain("\tat ").doesNotContain("Exception:");
    }

    /** One catalog for all the flag cases (none of them may change it). */
    private static FaultCatalog flags;

    private synchronized FaultCatalog flagsCatalog() throws Exception {
        if (flags == null) {
            flags = catalog("flags");
        }
        return flags;
    }

    private FaultCatalog catalog(String prefix) throws Exception {
        try (Connection c = pg.connect()) {
            return FaultCatalog.build(c, pg.freshSchema(prefix), 5);
        }
    }

    private CliRun drop(String schema, String... extra) {
        List<String> args = new ArrayList<>(List.of("drop-orphan-inline-tables", "--catalog", pg.url(), "--metadata-schema", schema, "--yes"));
        args.addAll(List.of(extra));
        return CliRun.run(args.toArray(new String[0]));
    }

    private void assertUnchanged(FaultCatalog cat) throws Exception {
        try (Connection c = pg.connect()) {
            CatalogInvariants.assertUnchanged(c, cat.before);
        }
    }

    private void exec(String sql) throws Exception {
        try (Connection c = pg.connect(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    // ------------------------------------------------------------------ connection

    @Test
    void unreachableHostIsExit3() {
        assertClean(CliRun.run("drop-orphan-inline-tables", "--catalog", "jdbc:postgresql://127.0.0.1:1/lake?user=janitor", "--yes"), 3,
                "Cannot connect to the catalog janitor@127.0.0.1:1/lake", "cannot be reached");
        assertClean(CliRun.run("drop-orphan-inline-tables", "--catalog", "postgresql://janitor@no-such-host.invalid:5432/lake", "--dry-run"),
                3, "no-such-host.invalid", "cannot be reached");
    }

    @Test
    void databaseThatDoesNotExistIsExit3() {
        String url = "jdbc:postgresql://" + pg.spec().host() + ":" + pg.spec().port() + "/no_such_db_" + ProcessHandle.current().pid()
                + "?user=" + pg.spec().user();
        assertClean(CliRun.run("drop-orphan-inline-tables", "--catalog", url, "--dry-run"), 3, "the database does not exist");
    }

    @Test
    void readOnlySessionFailsClearlyAndChangesNothing() throws Exception {
        // as when pointed at a hot standby or a role with default_transaction_read_only: the dry run works, the
        // execute run stops at its first write with a message that says so
        FaultCatalog cat = catalog("readonly");
        String url = "jdbc:postgresql://" + pg.spec().host() + ":" + pg.spec().port() + "/" + pg.spec().database() + "?user="
                + pg.spec().user() + "&options=-c%20default_transaction_read_only%3Don";
        CliRun dry = CliRun.run("drop-orphan-inline-tables", "--catalog", url, "--metadata-schema", cat.schema, "--dry-run");
        assertThat(dry.exitCode()).as("stderr: %s", dry.err()).isZero();
        CliRun run = CliRun.run("drop-orphan-inline-tables", "--catalog", url, "--metadata-schema", cat.schema, "--yes");
        assertClean(run, 9, "25006", "read-only");
        assertUnchanged(cat);
    }

    // ------------------------------------------------------------------ not a catalog

    @Test
    void databaseWithoutDuckLakeTablesIsExit4() throws Exception {
        String db = "nolake_" + ProcessHandle.current().pid();
        exec("DROP DATABASE IF EXISTS " + Sql.ident(db));
        exec("CREATE DATABASE " + Sql.ident(db));
        try {
            String url = "jdbc:postgresql://" + pg.spec().host() + ":" + pg.spec().port() + "/" + db + "?user=" + pg.spec().user();
            assertClean(CliRun.run("drop-orphan-inline-tables", "--catalog", url, "--yes"), 4,
                    "holds no DuckLake catalog: table ducklake_metadata is missing");
        } finally {
            exec("DROP DATABASE IF EXISTS " + Sql.ident(db));
        }
    }

    @Test
    void schemaWithoutDuckLakeTablesAndMissingSchemaAreExit4() throws Exception {
        String empty = pg.freshSchema("empty");
        exec("CREATE SCHEMA " + Sql.ident(empty) + "; CREATE TABLE " + Sql.qualified(empty, "ducklake_metadata") + "(key text, value text)");
        assertClean(drop(empty), 4, "table ducklake_snapshot is missing");
        // the message names the database and the server (issue 10)
        assertClean(drop("no_such_schema_" + ProcessHandle.current().pid()), 4, "does not exist in database '"
                + dev.ducklake.janitor.testsupport.TestPostgres.get().spec().database() + "' on "
                + dev.ducklake.janitor.testsupport.TestPostgres.get().spec().host() + ":");
        assertClean(drop("x\"; DROP SCHEMA public; --", "--dry-run"), 4, "does not exist in database");
    }

    // ------------------------------------------------------------------ format version, snapshots

    @ParameterizedTest
    @ValueSource(strings = {"1.2", "2.0", "9.9-dev1", "", " 1.0", "1.0\n"})
    void unknownOrNewerFormatVersionIsExit5AndChangesNothing(String version) throws Exception {
        FaultCatalog cat = catalog("badver");
        try (Connection c = pg.connect(); var ps = c.prepareStatement("UPDATE " + Sql.qualified(cat.schema, "ducklake_metadata")
                + " SET value = ? WHERE key = 'version'")) {
            ps.setString(1, version);
            ps.execute();
        }
        CatalogInvariants.Snapshot before;
        try (Connection c = pg.connect()) {
            before = CatalogInvariants.snapshot(c, cat.schema);
        }
        assertClean(drop(cat.schema), 5, "which this ducklake-janitor does not know", "known: 0.1");
        try (Connection c = pg.connect()) {
            CatalogInvariants.assertUnchanged(c, before);
        }
    }

    @Test
    void missingOrConflictingVersionIsExit5() throws Exception {
        FaultCatalog cat = catalog("nover");
        exec("INSERT INTO " + Sql.qualified(cat.schema, "ducklake_metadata") + " VALUES ('version', '0.3', NULL, NULL)");
        assertClean(drop(cat.schema), 5, "several different format versions");
        exec("DELETE FROM " + Sql.qualified(cat.schema, "ducklake_metadata") + " WHERE key = 'version'");
        assertClean(drop(cat.schema), 5, "has no format version");
    }

    @Test
    void emptySnapshotTableIsExit6AndChangesNothing() throws Exception {
        FaultCatalog cat = catalog("nosnap");
        exec("DELETE FROM " + Sql.qualified(cat.schema, "ducklake_snapshot"));
        CatalogInvariants.Snapshot before;
        try (Connection c = pg.connect()) {
            before = CatalogInvariants.snapshot(c, cat.schema);
        }
        assertClean(drop(cat.schema), 6, "ducklake_snapshot", "is empty");
        assertClean(drop(cat.schema, "--dry-run"), 6, "is empty");
        try (Connection c = pg.connect()) {
            CatalogInvariants.assertUnchanged(c, before);
        }
    }

    // ------------------------------------------------------------------ flags

    @ParameterizedTest
    @ValueSource(strings = {"--batch-size=0", "--batch-size=2001", "--batch-size=-1", "--batch-size=abc", "--batch-size=1.5",
        "--max-batches=0", "--max-batches=-3", "--max-batches=x", "--run-budget=0", "--run-budget=-1", "--run-budget=abc",
        "--run-budget=NaN", "--run-budget=1e400", "--statement-timeout=-1", "--statement-timeout=NaN",
        "--statement-timeout=Infinity", "--lock-timeout=x", "--lock-timeout=-0.5", "--reconnect-timeout=-5",
        "--output=xml", "--no-such-flag", "--metadata-schema=", "--lock-name="})
    void malformedOrOutOfRangeFlagIsExit2AndChangesNothing(String flag) throws Exception {
        FaultCatalog cat = flagsCatalog();
        CliRun run = drop(cat.schema, flag);
        assertThat(run.exitCode()).as("usage error for %s; stderr: %s", flag, run.err()).isEqualTo(2);
        assertThat(run.err()).as("one clear line").startsWith("error: ");
        assertThat(run.all()).doesNotContain("\tat ");
        assertUnchanged(cat);
    }

    @Test
    void aBadSecondMetadataSchemaIsRefusedBeforeTheFirstSchemaRuns() throws Exception {
        // regression: with repeatable --metadata-schema, the first schema used to run (and drop) before the empty
        // second one was refused
        FaultCatalog cat = catalog("first");
        CliRun run = drop(cat.schema, "--metadata-schema", "");
        assertClean(run, 2, "--metadata-schema must not be empty");
        assertUnchanged(cat);
    }

    @ParameterizedTest
    @ValueSource(strings = {"host=h port=99999", "port=abc host=h", "jdbc:mysql://h/db", "host=/var/run/postgresql",
        "host=h bogus=1", "host=h dbname", "host='unterminated", "postgresql://h:5432/db?connect_timeout=soon",
        "ducklake:sqlite:file.db", "postgresql://[::1/x"})
    void malformedCatalogStringIsExit2(String catalog) {
        CliRun run = CliRun.run("drop-orphan-inline-tables", "--catalog", catalog, "--dry-run");
        assertThat(run.exitCode()).as("usage error for %s; stderr: %s", catalog, run.err()).isEqualTo(2);
        assertThat(run.err()).startsWith("error: ");
        assertThat(run.all()).doesNotContain("\tat ");
    }

    @Test
    void noCatalogAtAllIsExit2() {
        assertClean(CliRun.run("drop-orphan-inline-tables", "--dry-run"), 2, "No catalog connection given");
    }
}
