package dev.ducklake.janitor.testsupport;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.pg.ConnectionSpec;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of one test's own (io.zonky embedded), for faults that touch the whole server: stopping and
 * restarting it on the same port and data directory, or starting it with unusual settings
 * ({@code max_locks_per_transaction}, authentication). Close it at the end of the test.
 */
public final class DedicatedPostgres implements AutoCloseable {

    private final Path dataDir;
    private final int port;
    private final Map<String, String> config;
    private final Consumer<java.io.File> customizer;
    private EmbeddedPostgres server;

    private DedicatedPostgres(Map<String, String> config, Consumer<java.io.File> customizer) throws IOException {
        this.dataDir = Files.createTempDirectory("janitor-pg-");
        try (ServerSocket s = new ServerSocket(0)) {
            this.port = s.getLocalPort();
        }
        this.config = new LinkedHashMap<>(config);
        this.customizer = customizer;
        start();
    }

    /**
     * Starts a server.
     *
     * @param config server settings (postgresql.conf names)
     * @param dataDirectoryCustomizer runs on the data directory before the first start (e.g. writes pg_hba.conf), or null
     * @return the running server
     * @throws IOException when it cannot start
     */
    public static DedicatedPostgres start(Map<String, String> config, Consumer<java.io.File> dataDirectoryCustomizer) throws IOException {
        return new DedicatedPostgres(config, dataDirectoryCustomizer);
    }

    /** Starts (again) on the same port and data directory. */
    public synchronized void start() throws IOException {
        EmbeddedPostgres.Builder b = EmbeddedPostgres.builder().setPort(port).setDataDirectory(dataDir)
                .setCleanDataDirectory(false).setRegisterShutdownHook(true);
        config.forEach(b::setServerConfig);
        if (customizer != null) {
            b.setDataDirectoryCustomizer(customizer);
        }
        server = b.start();
        PgMajor.verify(Integer.parseInt(Files.readString(dataDir.resolve("PG_VERSION")).strip()), "a dedicated test server");
    }

    /** Stops the server (fast shutdown: sessions are terminated); the data directory stays. */
    public synchronized void stop() throws IOException {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /** The JDBC URL as the superuser postgres. */
    public String url() {
        return "jdbc:postgresql://localhost:" + port + "/postgres?user=postgres";
    }

    /** The port. */
    public int port() {
        return port;
    }

    /** The parsed connection (superuser). */
    public ConnectionSpec spec() {
        try {
            return ConnectionSpec.parse(url(), Map.of(), null);
        } catch (JanitorException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A new superuser connection. */
    public Connection connect() throws SQLException {
        return spec().openRaw();
    }

    @Override
    public void close() throws IOException {
        stop();
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
