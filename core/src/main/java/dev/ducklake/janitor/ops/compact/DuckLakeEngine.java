package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.runtime.DuckDbDriver;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.retry.Bounds;
import dev.ducklake.janitor.retry.CallWatch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * DuckLake's own engine, in process: DuckDB through its JDBC driver ({@value #DRIVER_ARTIFACT}, not shaded into the
 * janitor's jar: it is loaded by class name only by flush-inlined-data and compact), the {@code ducklake} and
 * {@code postgres_scanner} extensions, and the catalog ATTACHed read-write as {@value #ALIAS}.
 *
 * <p>The password never enters a statement DuckDB could echo with the connection string: it goes into a temporary DuckDB
 * secret of type postgres (the default one, which postgres_scanner merges into the ATTACH's connection string), and every
 * DuckDB message the janitor prints passes {@link ConnectionSpec#redact}.
 */
public final class DuckLakeEngine implements AutoCloseable {

    /** The DuckDB catalog alias of the attached DuckLake catalog in every planned call. */
    public static final String ALIAS = "lake";
    /** The driver's class ({@link DuckDbDriver#CLASS_NAME}). */
    public static final String DRIVER_CLASS = DuckDbDriver.CLASS_NAME;
    /** The driver artifact the janitor is proven with ({@link DuckDbDriver#ARTIFACT}). */
    public static final String DRIVER_ARTIFACT = DuckDbDriver.ARTIFACT;
    /** The file name the jar's manifest Class-Path names ({@link DuckDbDriver#JAR}). */
    public static final String DRIVER_JAR = DuckDbDriver.JAR;
    /** The catalog format DuckLake 1.5.5 writes without migrating it ({@code ducklake_initializer.cpp}: anything else needs AUTOMATIC_MIGRATION). */
    public static final String WRITABLE_FORMAT = "1.0";

    /**
     * DuckLake's transaction conflicts (a writer committing at the same time: "Transaction conflict", DuckDB's
     * "Conflict on ..."), DuckLake's own commit retries used up ("Exceeded the maximum retry count of 10 set by the
     * ducklake_max_retry_count setting": each of its attempts lost the race for the next snapshot_id, a duplicate key on
     * {@code ducklake_snapshot_pkey}, to a live writer; seen with a writer committing one row per transaction during
     * {@code ducklake_flush_inlined_data}, CompactConcurrentWriterInteropTest) and PostgreSQL's serialization failures
     * and deadlocks reported through postgres_scanner: retried. The failed call's DuckLake transaction was rolled back.
     */
    private static final Pattern CONFLICT = Pattern.compile("(?i)(transaction conflict|conflict on|could not serialize|deadlock detected"
            + "|concurrent update|exceeded the maximum retry count)");

    private final Connection duck;
    private final ConnectionSpec spec;
    private final String duckdbVersion;
    private final Map<String, String> extensionVersions;
    /** Values of DuckDB's storage secret (S3 secret key, session token) that must never be printed. */
    private final List<String> storageSecrets;

    private DuckLakeEngine(Connection duck, ConnectionSpec spec, String duckdbVersion, Map<String, String> extensionVersions,
                           List<String> storageSecrets) {
        this.duck = duck;
        this.spec = spec;
        this.duckdbVersion = duckdbVersion;
        this.extensionVersions = extensionVersions;
        this.storageSecrets = storageSecrets;
    }

    /**
     * Loads the DuckDB JDBC driver by class name ({@link DuckDbDriver}, the one loader).
     *
     * @param className the driver class ({@link #DRIVER_CLASS})
     * @return the driver
     * @throws JanitorException ENGINE_UNAVAILABLE naming the artifact to add
     */
    static Driver loadDriver(String className) throws JanitorException {
        return DuckDbDriver.load(className, "flush-inlined-data and compact run DuckLake's own functions in an in-process DuckDB");
    }

    /**
     * Starts DuckDB, loads the extensions and ATTACHes the catalog read-write.
     *
     * @param settings memory limit, threads, temp directory, extension directory
     * @param spec the catalog's connection (the janitor's own settings: host, port, database, user, password)
     * @param metadataSchema the metadata schema
     * @param dataPath the catalog's data_path ({@code ducklake_metadata}), passed as DATA_PATH
     * @return the engine; close it
     * @throws JanitorException ENGINE_UNAVAILABLE when the driver or an extension is missing; CONNECTION when the ATTACH fails
     *     (e.g. the server offers no TLS and the sslmode requires it)
     */
    public static DuckLakeEngine open(EngineSettings settings, ConnectionSpec spec, String metadataSchema, String dataPath)
            throws JanitorException {
        String conninfo = conninfo(spec);
        EngineStorage.Access storage = EngineStorage.resolve(dataPath, settings.s3()); // refuses S3 without credentials first
        Connection duck = start(settings);
        try {
            loadExtensions(duck, settings.extensionDir(), storage.needsHttpfs());
            String version = scalar(duck, "SELECT version()");
            Map<String, String> ext = new LinkedHashMap<>();
            try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery("SELECT extension_name, extension_version"
                    + " FROM duckdb_extensions() WHERE loaded AND extension_name IN ('ducklake', 'postgres_scanner') ORDER BY 1")) {
                while (rs.next()) {
                    ext.put(rs.getString(1), rs.getString(2));
                }
            }
            DuckLakeEngine engine = new DuckLakeEngine(duck, spec, version, ext, storage.secrets());
            if (storage.secretSql() != null) {
                engine.createStorageSecret(storage.secretSql());
            }
            engine.attach(conninfo, metadataSchema, dataPath);
            return engine;
        } catch (JanitorException e) {
            closeQuietly(duck);
            throw e;
        } catch (SQLException e) {
            closeQuietly(duck);
            throw new JanitorException(Reason.ENGINE_UNAVAILABLE, "DuckDB failed while starting: "
                    + mask(spec.redact(e.getMessage()), storage.secrets()), e);
        }
    }

    /**
     * What a dry run checks of the engine an execute run would start, without ATTACHing anything: the storage access
     * of the data path, the DuckDB driver, an in-memory DuckDB and its extensions (from {@code --duckdb-extension-dir},
     * else INSTALLed from DuckDB's repository, which may wait for the network as the execute run would).
     *
     * @param settings the engine settings of the run
     * @param dataPath the catalog's data_path
     * @throws JanitorException ENGINE_UNAVAILABLE (or the storage refusal of {@link EngineStorage#resolve}) naming what
     *     an execute run would stop on
     */
    public static void probe(EngineSettings settings, String dataPath) throws JanitorException {
        probeEngine(settings, EngineStorage.resolve(dataPath, settings.s3()).needsHttpfs());
    }

    /**
     * The engine's part of {@link #probe} (its storage access checked by the caller): starts an in-memory DuckDB, loads
     * the extensions, closes it.
     *
     * @param settings the engine settings of the run
     * @param httpfs whether httpfs is loaded too (a data path on S3)
     * @throws JanitorException ENGINE_UNAVAILABLE naming what an execute run would stop on
     */
    static void probeEngine(EngineSettings settings, boolean httpfs) throws JanitorException {
        Connection duck = start(settings);
        try {
            loadExtensions(duck, settings.extensionDir(), httpfs);
        } finally {
            closeQuietly(duck);
        }
    }

    /** The in-process DuckDB with the run's memory, threads and temp directory, no extension loaded automatically. */
    private static Connection start(EngineSettings settings) throws JanitorException {
        Driver driver = loadDriver(DRIVER_CLASS);
        Properties props = new Properties();
        props.setProperty("memory_limit", settings.memoryLimit());
        props.setProperty("threads", Integer.toString(settings.threads()));
        Path temp = settings.tempDirectory() != null ? settings.tempDirectory()
                : Path.of(System.getProperty("java.io.tmpdir"), "ducklake-janitor-duckdb");
        props.setProperty("temp_directory", temp.toString());
        props.setProperty("autoload_known_extensions", "false");
        props.setProperty("autoinstall_known_extensions", "false");
        try {
            return driver.connect("jdbc:duckdb:", props);
        } catch (SQLException | RuntimeException | LinkageError e) {
            throw new JanitorException(Reason.ENGINE_UNAVAILABLE, "DuckDB could not start in process (" + DRIVER_ARTIFACT + "): "
                    + e.getMessage(), e);
        }
    }

    private static void loadExtensions(Connection duck, Path dir, boolean httpfs) throws JanitorException {
        String where;
        List<String> statements = new ArrayList<>();
        if (dir != null) {
            where = "the directory " + dir + " (--duckdb-extension-dir)";
            String ducklake = findExtension(dir, "ducklake");
            String postgres = findExtension(dir, "postgres_scanner");
            String http = httpfs ? findExtension(dir, "httpfs") : "";
            if (ducklake == null || postgres == null || http == null) {
                String missing = ducklake == null ? "ducklake" : postgres == null ? "postgres_scanner" : "httpfs";
                throw new JanitorException(Reason.ENGINE_UNAVAILABLE, "No " + missing + ".duckdb_extension file under " + where
                        + ": put the ducklake and postgres_scanner extension files of DuckDB 1.5.5 there"
                        + (httpfs ? ", and httpfs for a catalog whose data path is on S3" : "")
                        + " (e.g. from the duckdb-extension-ducklake, duckdb-extension-postgres-scanner and duckdb-extension-httpfs"
                        + " wheels). Nothing was changed.");
            }
            statements.add("LOAD " + DuckLakeCalls.literal(postgres));
            statements.add("LOAD " + DuckLakeCalls.literal(ducklake));
            if (httpfs) {
                statements.add("LOAD " + DuckLakeCalls.literal(http));
            }
        } else {
            where = "DuckDB's extension repository (INSTALL; or give --duckdb-extension-dir for an air-gapped image)";
            statements.add("INSTALL postgres");
            statements.add("INSTALL ducklake");
            statements.add("LOAD postgres");
            statements.add("LOAD ducklake");
            if (httpfs) {
                statements.add("INSTALL httpfs");
                statements.add("LOAD httpfs");
            }
        }
        try (Statement st = duck.createStatement()) {
            for (String s : statements) {
                st.execute(s);
            }
        } catch (SQLException e) {
            throw new JanitorException(Reason.ENGINE_UNAVAILABLE, "Could not load DuckDB's ducklake and postgres extensions"
                    + (httpfs ? " and httpfs" : "") + " from "
                    + where + ": " + e.getMessage() + " Nothing was changed.", e);
        }
    }

    /**
     * The extension file under a directory (searched recursively), preferring a path that names DuckDB's version
     * directory {@code v1.5.5}.
     *
     * @return its path, or null
     */
    static String findExtension(Path dir, String name) throws JanitorException {
        String file = name + ".duckdb_extension";
        try (Stream<Path> s = Files.walk(dir, 8)) {
            List<Path> found = s.filter(p -> p.getFileName() != null && p.getFileName().toString().equals(file)).sorted().toList();
            return found.stream().filter(p -> p.toString().contains("/v1.5.5/")).findFirst()
                    .or(() -> found.stream().findFirst()).map(Path::toString).orElse(null);
        } catch (IOException | java.io.UncheckedIOException e) {
            throw new JanitorException(Reason.ENGINE_UNAVAILABLE, "Cannot read the extension directory " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * The libpq connection string DuckDB's postgres extension gets for the catalog: host, port, database, user, the
     * janitor's application name and {@link ConnectionSpec#libpqParameters} (TLS, routing, connect timeout); never
     * the password nor an {@code sslpassword} (both go into a temporary DuckDB secret, {@link #attach}).
     *
     * @param spec the catalog's connection
     * @return the key/value string, each value quoted by {@link #libpq}
     */
    static String conninfo(ConnectionSpec spec) {
        StringBuilder conninfo = new StringBuilder();
        conninfo.append("host=").append(libpq(spec.host())).append(" port=").append(libpq(spec.port())).append(" dbname=")
                .append(libpq(spec.database())).append(" user=").append(libpq(spec.user()))
                .append(" application_name=ducklake-janitor");
        // the catalog's TLS and routing settings reach DuckDB as they reach the JDBC driver: a catalog that demands
        // sslmode=verify-full is attached with the same verification, never with libpq's default
        for (Map.Entry<String, String> p : spec.libpqParameters().entrySet()) {
            conninfo.append(' ').append(p.getKey()).append('=').append(libpq(p.getValue()));
        }
        return conninfo.toString();
    }

    private void attach(String conninfo, String metadataSchema, String dataPath) throws JanitorException {
        try (Statement st = duck.createStatement()) {
            String pw = spec.passwordSource().resolve();
            List<String> secret = new ArrayList<>();
            if (pw != null && !pw.isEmpty()) {
                secret.add("PASSWORD " + DuckLakeCalls.literal(pw));
            }
            if (spec.sslPassword() != null) {
                // the passphrase of an encrypted client key: a field of the postgres secret (duckdb_secrets() shows it
                // as "redacted"), never in the ATTACH string DuckDB may echo
                secret.add("SSLPASSWORD " + DuckLakeCalls.literal(spec.sslPassword()));
            }
            if (!secret.isEmpty()) {
                // an unnamed postgres secret is the default one: postgres_scanner takes what the ATTACH string does not say
                // from it (duckdb.org, "PostgreSQL Extension and the Secret Manager")
                st.execute("CREATE TEMPORARY SECRET (TYPE postgres, " + String.join(", ", secret) + ")");
            }
            st.execute("ATTACH " + DuckLakeCalls.literal("ducklake:postgres:" + conninfo) + " AS " + ALIAS + " (METADATA_SCHEMA "
                    + DuckLakeCalls.literal(metadataSchema) + (dataPath == null ? "" : ", DATA_PATH " + DuckLakeCalls.literal(dataPath)) + ")");
        } catch (SQLException e) {
            // an option DuckLake refuses is the catalog's contents, not the connection (exit 6, not 3)
            JanitorException badOption = CatalogOptionValues.invalid(spec, metadataSchema, e);
            if (badOption != null) {
                throw badOption;
            }
            throw new JanitorException(Reason.CONNECTION, "DuckLake could not attach the catalog " + spec.describe() + " schema '"
                    + metadataSchema + "': " + spec.redact(e.getMessage()), e);
        }
    }

    /** A libpq connection-string value, single-quoted with {@code \} and {@code '} escaped. */
    static String libpq(String v) {
        return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    /**
     * Runs one statement (its own DuckDB transaction, autocommit), unwatched: a setting, a query of a test.
     *
     * @param sql a statement from {@link DuckLakeCalls}
     * @return the rows it returned, each row's columns joined by {@code |}
     * @throws SQLException DuckDB's error (classify with {@link #isConflict}; redact with {@link #redact})
     */
    public List<String> call(String sql) throws SQLException {
        return call(sql, Bounds.NONE);
    }

    /**
     * Runs one DuckLake call (its own DuckDB transaction, autocommit) within the run's bounds: it is not started once
     * they are exhausted, and a stop request or the run budget running out while it runs cancels it
     * ({@link CallWatch}: {@code Statement.cancel()}, DuckDB's interrupt, looked at every
     * {@value dev.ducklake.janitor.retry.Pause#STOP_POLL_MILLIS} ms). DuckDB then ends the call with an "Interrupted"
     * error and rolls its transaction back: DuckLake commits a call's snapshot to the catalog at the end of the
     * transaction ({@code DuckLakeTransaction::Commit}), so a cancelled call leaves no snapshot, and the files it had
     * written are deleted by the rollback.
     *
     * @param sql a statement from {@link DuckLakeCalls}
     * @param bounds the run's budget and stop request
     * @return the rows it returned, each row's columns joined by {@code |} (a call the cancel reached only after it had
     *     completed returns normally: it committed)
     * @throws Cancelled when the bounds were exhausted before the call started or cancelled it in flight
     * @throws SQLException DuckDB's error (classify with {@link #isConflict}; redact with {@link #redact})
     */
    public List<String> call(String sql, Bounds bounds) throws SQLException {
        if (bounds.exhausted()) {
            throw new Cancelled(false, null);
        }
        List<String> rows = new ArrayList<>();
        try (Statement st = duck.createStatement(); CallWatch watch = CallWatch.start(bounds, st::cancel)) {
            try {
                if (st.execute(sql)) {
                    try (ResultSet rs = st.getResultSet()) {
                        int n = rs.getMetaData().getColumnCount();
                        while (rs.next()) {
                            StringBuilder sb = new StringBuilder();
                            for (int i = 1; i <= n; i++) {
                                sb.append(i == 1 ? "" : "|").append(rs.getString(i));
                            }
                            rows.add(sb.toString());
                        }
                    }
                }
            } catch (SQLException e) {
                watch.close();
                if (watch.fired()) {
                    throw new Cancelled(true, e);
                }
                throw e;
            }
        }
        return rows;
    }

    /**
     * A DuckLake call the run's bounds ended: not started, or cancelled in flight (its DuckDB transaction rolled back).
     * Never a transaction conflict: not retried.
     */
    public static final class Cancelled extends SQLException {
        private static final long serialVersionUID = 1L;
        private final boolean inFlight;

        Cancelled(boolean inFlight, SQLException cause) {
            super(inFlight ? "cancelled in flight (DuckDB rolled the call's transaction back)" : "not started", cause);
            this.inFlight = inFlight;
        }

        /** @return whether the call had started (and was cancelled) rather than not started */
        public boolean inFlight() {
            return inFlight;
        }
    }

    /** @return whether DuckDB's error is a transaction conflict worth retrying ({@link #CONFLICT}) */
    public static boolean isConflict(SQLException e) {
        if (e instanceof Cancelled) {
            return false;
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null && CONFLICT.matcher(t.getMessage()).find()) {
                return true;
            }
        }
        return false;
    }

    /** @return a DuckDB message without the catalog's password nor the storage credentials */
    public String redact(String message) {
        return mask(spec.redact(message), storageSecrets);
    }

    private static String mask(String text, List<String> secrets) {
        String out = text;
        for (String s : secrets) {
            out = out.replace(s, dev.ducklake.janitor.Secrets.MASK);
        }
        return out;
    }

    /** Creates DuckDB's storage secret ({@link EngineStorage}); its message never carries the credentials. */
    private void createStorageSecret(String sql) throws JanitorException {
        try (Statement st = duck.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new JanitorException(Reason.STORAGE, "DuckDB could not take the S3 credentials: " + redact(e.getMessage()), e);
        }
    }

    /** @return the DuckDB connection itself, for a test that closes it under a running call */
    Connection connection() {
        return duck;
    }

    /** @return DuckDB's version, e.g. {@code v1.5.5} */
    public String duckdbVersion() {
        return duckdbVersion;
    }

    /** @return the loaded extensions' versions by name ({@code ducklake}, {@code postgres_scanner}) */
    public Map<String, String> extensionVersions() {
        return Map.copyOf(extensionVersions);
    }

    private static String scalar(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException ignored) {
            // closing after a failure
        }
    }

    /** Detaches and shuts DuckDB down. */
    @Override
    public void close() {
        try (Statement st = duck.createStatement()) {
            st.execute("DETACH " + ALIAS);
        } catch (SQLException ignored) {
            // not attached, or already gone
        }
        closeQuietly(duck);
    }
}
