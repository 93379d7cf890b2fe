package dev.ducklake.janitor.testsupport;

import dev.ducklake.janitor.pg.ConnectionSpec;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The real PostgreSQL the tests run against: an embedded server (io.zonky) started once per JVM, or the
 * external server named by the environment variable {@code DUCKLAKE_JANITOR_TEST_PG_URL} (a JDBC URL, libpq
 * URI or key/value string). Each test works in its own fresh schema ({@link #freshSchema}). The embedded server's
 * major is chosen with {@code mvn -Dpg.major=N} and checked on start ({@link PgMajor}).
 */
public final class TestPostgres {

    /** Environment variable naming an external test server. */
    public static final String ENV = "DUCKLAKE_JANITOR_TEST_PG_URL";

    private static TestPostgres instance;
    private static final AtomicInteger SCHEMAS = new AtomicInteger();

    private final EmbeddedPostgres embedded;
    private final ConnectionSpec spec;
    private final String url;

    private TestPostgres(EmbeddedPostgres embedded, String url) {
        this.embedded = embedded;
        this.url = url;
        try {
            this.spec = ConnectionSpec.parse(url, Map.of(), null);
        } catch (dev.ducklake.janitor.JanitorException e) {
            throw new IllegalStateException("cannot parse " + ENV + ": " + e.getMessage(), e);
        }
    }

    /** The shared server, started on first use. */
    public static synchronized TestPostgres get() {
        if (instance == null) {
            String external = System.getenv(ENV);
            if (external != null && !external.isBlank()) {
                instance = new TestPostgres(null, external.strip());
            } else {
                try {
                    EmbeddedPostgres pg = EmbeddedPostgres.builder().start();
                    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                        try {
                            pg.close();
                        } catch (IOException ignored) {
                            // exiting
                        }
                    }));
                    instance = new TestPostgres(pg, pg.getJdbcUrl("postgres", "postgres"));
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot start the embedded PostgreSQL", e);
                }
            }
            try (Connection c = instance.connect()) {
                PgMajor.verify(c, "the test server");
            } catch (SQLException e) {
                throw new IllegalStateException("cannot connect to the test server", e);
            }
        }
        return instance;
    }

    /** The embedded server, or null when the tests run against an external one. */
    public EmbeddedPostgres embedded() {
        return embedded;
    }

    /** The connection string the tests use (a JDBC URL for the embedded server; may include the user). */
    public String url() {
        return url;
    }

    /** The parsed connection. */
    public ConnectionSpec spec() {
        return spec;
    }

    /** A libpq key/value string for the same server (for DuckDB's ATTACH). */
    public String libpq() {
        return "host=" + spec.host() + " port=" + spec.port() + " dbname=" + spec.database() + " user=" + spec.user()
                + (embedded == null && System.getenv("PGPASSWORD") != null ? "" : "");
    }

    /** A new connection (autocommit). */
    public Connection connect() throws SQLException {
        return spec.openRaw();
    }

    /**
     * A schema name not used before in this JVM; the schema is dropped first if a previous run left it.
     *
     * @param prefix a readable prefix
     * @return the schema name (lower case, safe)
     */
    public String freshSchema(String prefix) throws SQLException {
        String name = (prefix + "_" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet()).toLowerCase();
        try (Connection c = connect(); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS \"" + name + "\" CASCADE");
        }
        return name;
    }
}
