package dev.ducklake.janitor.testsupport;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalInt;

/**
 * The PostgreSQL major a test run is meant to prove (issue 23; docs/compatibility.md). Chosen with
 * {@code mvn -Dpg.major=N} (a pom profile picks the embedded binaries of that major and passes the system property
 * {@value #PROPERTY}), or with the environment variable {@value #ENV} for an external server. When set, every test
 * server ({@link TestPostgres}, {@link DedicatedPostgres}) is checked on start and a server of another major fails
 * the run instead of proving the wrong major.
 */
public final class PgMajor {

    /** System property set by the pom from {@code -Dpg.major}. */
    public static final String PROPERTY = "ducklake.test.pg.major";
    /** Environment variable naming the expected major (for an external {@code DUCKLAKE_JANITOR_TEST_PG_URL}). */
    public static final String ENV = "DUCKLAKE_JANITOR_TEST_PG_MAJOR";

    private PgMajor() {
    }

    /** The expected major (e.g. 13), or empty when the run does not name one. */
    public static OptionalInt expected() {
        String v = System.getProperty(PROPERTY);
        if (v == null || v.isBlank()) {
            v = System.getenv(ENV);
        }
        if (v == null || v.isBlank()) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(v.strip()));
        } catch (NumberFormatException e) {
            throw new IllegalStateException(PROPERTY + "/" + ENV + " must be a PostgreSQL major such as 13, not '" + v + "'");
        }
    }

    /** The major of the server behind {@code c} ({@code server_version_num / 10000}). */
    public static int of(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT current_setting('server_version_num')::int / 10000")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /**
     * Fails when a major is expected and the server runs another.
     *
     * @param c a connection to the server
     * @param what which server, for the message
     * @throws IllegalStateException on a mismatch
     */
    public static void verify(Connection c, String what) throws SQLException {
        verify(of(c), what);
    }

    /**
     * Fails when a major is expected and {@code got} is another.
     *
     * @param got the server's major (e.g. from its data directory's {@code PG_VERSION})
     * @param what which server, for the message
     * @throws IllegalStateException on a mismatch
     */
    public static void verify(int got, String what) {
        OptionalInt want = expected();
        if (want.isPresent()) {
            if (got != want.getAsInt()) {
                throw new IllegalStateException(what + " runs PostgreSQL " + got + " but this run is meant to prove "
                        + want.getAsInt() + " (" + PROPERTY + "/" + ENV + ")");
            }
        }
    }
}
