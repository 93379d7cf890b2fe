package dev.ducklake.janitor.testsupport;

import dev.ducklake.janitor.pg.ConnectionSpec;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A real PgBouncer (Debian's {@code pgbouncer} package, {@code /usr/sbin/pgbouncer}) started as a child process on
 * loopback in front of the test PostgreSQL ({@link TestPostgres}: the embedded server or
 * {@code DUCKLAKE_JANITOR_TEST_PG_URL}). Writes a {@code pgbouncer.ini} into a temporary directory (pool mode,
 * {@code auth_type} trust, or md5 with a {@code userlist.txt}, a free port, no Unix socket), waits until the port
 * accepts connections, and stops the process on {@link #close()}.
 *
 * <p>PgBouncer refuses to run as root: as root it is started with {@code -u} as the unprivileged {@code postgres}
 * user when that exists (Debian's server package creates it), else {@code nobody}. Tests skip with one line when the
 * binary is not installed, unless {@code DUCKLAKE_JANITOR_REQUIRE_PGBOUNCER=1} (set by {@code .ci/run}): then they fail.
 *
 * <p>{@code ignore_startup_parameters = extra_float_digits}: pgJDBC sends that startup parameter, which PgBouncer
 * otherwise rejects ("unsupported startup parameter"); operators need the same line.
 */
public final class PgBouncer implements AutoCloseable {

    /** Environment variable that turns a missing pgbouncer binary into a test failure. */
    public static final String REQUIRE_ENV = "DUCKLAKE_JANITOR_REQUIRE_PGBOUNCER";

    /** PgBouncer's pool_mode. */
    public enum PoolMode {
        SESSION, TRANSACTION, STATEMENT;

        String ini() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Ports handed out in this JVM: never reused, so a cached probe result of an earlier pooler cannot apply to a later one. */
    private static final Set<Integer> USED_PORTS = ConcurrentHashMap.newKeySet();

    private final Process process;
    private final Path dir;
    private final int port;
    private final PoolMode mode;
    private final String user;
    private final String password;

    private PgBouncer(Process process, Path dir, int port, PoolMode mode, String user, String password) {
        this.process = process;
        this.dir = dir;
        this.port = port;
        this.mode = mode;
        this.user = user;
        this.password = password;
    }

    /** The pgbouncer binary, or null when it is not installed. */
    static Path binary() {
        for (String p : new String[] {"/usr/sbin/pgbouncer", "/usr/bin/pgbouncer", "/usr/local/bin/pgbouncer"}) {
            if (Files.isExecutable(Path.of(p))) {
                return Path.of(p);
            }
        }
        return null;
    }

    /**
     * Skips the calling test (one line) when pgbouncer is not installed, or fails it when
     * {@value #REQUIRE_ENV}{@code =1}.
     */
    public static void assumeInstalled() {
        if (binary() != null) {
            return;
        }
        String msg = "pgbouncer is not installed (apt-get install -y pgbouncer); PgBouncer tests skipped";
        if ("1".equals(System.getenv(REQUIRE_ENV))) {
            throw new AssertionError(msg.replace("skipped", "required by " + REQUIRE_ENV + "=1"));
        }
        System.err.println("SKIP: " + msg);
        Assumptions.abort(msg);
    }

    /**
     * Starts PgBouncer with {@code auth_type = trust} in front of the test server.
     *
     * @param mode the pool mode
     * @return the running pooler
     */
    public static PgBouncer start(PoolMode mode) {
        return start(mode, null);
    }

    /**
     * Starts PgBouncer in front of the test server.
     *
     * @param mode the pool mode
     * @param md5Password null for {@code auth_type = trust}; else {@code auth_type = md5} with a userlist holding the
     *     test server's user and this password (the test server itself trusts loopback, so PgBouncer's own login to it
     *     needs no password)
     * @return the running pooler (wait done: the port accepts connections)
     */
    public static PgBouncer start(PoolMode mode, String md5Password) {
        assumeInstalled();
        ConnectionSpec server = TestPostgres.get().spec();
        try {
            Path dir = Files.createTempDirectory("pgbouncer-test-");
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            int port = freePort();
            String user = server.user();
            StringBuilder ini = new StringBuilder();
            ini.append("[databases]\n");
            // every database name maps to the same database on the test server
            ini.append("* = host=").append(server.host()).append(" port=").append(server.port()).append('\n');
            ini.append("[pgbouncer]\n");
            ini.append("listen_addr = 127.0.0.1\n");
            ini.append("listen_port = ").append(port).append('\n');
            ini.append("unix_socket_dir =\n");
            ini.append("pool_mode = ").append(mode.ini()).append('\n');
            ini.append("default_pool_size = 20\nmax_client_conn = 200\n");
            ini.append("ignore_startup_parameters = extra_float_digits\n");
            // no logfile/pidfile: the unprivileged user cannot write the directory; the log goes to stderr (stdout.log)
            ini.append("admin_users = ").append(user).append('\n');
            if (md5Password == null) {
                ini.append("auth_type = trust\n");
            } else {
                ini.append("auth_type = md5\n");
            }
            // trust also reads the userlist (it names the users allowed in)
            ini.append("auth_file = ").append(dir.resolve("userlist.txt")).append('\n');
            Files.writeString(dir.resolve("userlist.txt"), "\"" + user + "\" \"" + (md5Password == null ? "" : md5Password) + "\"\n",
                    StandardCharsets.UTF_8);
            Files.writeString(dir.resolve("pgbouncer.ini"), ini.toString(), StandardCharsets.UTF_8);
            for (String f : new String[] {"pgbouncer.ini", "userlist.txt"}) {
                Files.setPosixFilePermissions(dir.resolve(f), PosixFilePermissions.fromString("rw-r--r--"));
            }
            ProcessBuilder pb = new ProcessBuilder();
            String unprivileged = asRoot() ? unprivilegedUser() : null;
            if (unprivileged != null) {
                pb.command(binary().toString(), "-u", unprivileged, dir.resolve("pgbouncer.ini").toString());
            } else {
                pb.command(binary().toString(), dir.resolve("pgbouncer.ini").toString());
            }
            pb.redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile());
            Process p = pb.start();
            PgBouncer b = new PgBouncer(p, dir, port, mode, user, md5Password);
            b.awaitPort();
            return b;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start pgbouncer", e);
        }
    }

    private static boolean asRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static String unprivilegedUser() {
        try {
            for (String line : Files.readAllLines(Path.of("/etc/passwd"))) {
                if (line.startsWith("postgres:")) {
                    return "postgres";
                }
            }
        } catch (IOException ignored) {
            // fall back
        }
        return "nobody";
    }

    private static int freePort() throws IOException {
        for (int i = 0; i < 50; i++) {
            try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                int port = s.getLocalPort();
                if (USED_PORTS.add(port)) {
                    return port;
                }
            }
        }
        throw new IOException("no free port not used before");
    }

    private void awaitPort() throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("pgbouncer exited with " + process.exitValue() + ": " + log());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
        }
        close();
        throw new IOException("pgbouncer did not listen on port " + port + " within 15 s: " + log());
    }

    /** The pooler's log and output so far (for assertion messages). */
    public String log() {
        StringBuilder sb = new StringBuilder();
        for (String f : new String[] {"stdout.log"}) {
            try {
                sb.append(Files.readString(dir.resolve(f)));
            } catch (IOException ignored) {
                // not written yet
            }
        }
        return sb.toString();
    }

    /** The pool mode. */
    public PoolMode mode() {
        return mode;
    }

    /** The loopback port PgBouncer listens on. */
    public int port() {
        return port;
    }

    /**
     * A JDBC URL through the pooler to the test server's database (for --catalog), with the md5 password when one was
     * set.
     */
    public String url() {
        ConnectionSpec server = TestPostgres.get().spec();
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + server.database() + "?user=" + user
                + (password == null ? "" : "&password=" + password);
    }

    /** A libpq key/value string through the pooler, without the password (for tests that pass it another way). */
    public String libpqWithoutPassword() {
        return "host=127.0.0.1 port=" + port + " dbname=" + TestPostgres.get().spec().database() + " user=" + user;
    }

    /** The parsed connection through the pooler. */
    public ConnectionSpec spec() {
        try {
            return ConnectionSpec.parse(url(), java.util.Map.of(), null);
        } catch (dev.ducklake.janitor.JanitorException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Stops PgBouncer (SIGTERM, then SIGKILL after 5 s) and removes its directory. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory left behind
        }
    }
}
