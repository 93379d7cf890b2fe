package dev.ducklake.janitor.api;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.ConnectionSpec;

import javax.sql.DataSource;
import java.util.Map;
import java.util.Objects;

/**
 * The library's entry point: one DuckLake catalog (a PostgreSQL database and the metadata schema holding its
 * {@code ducklake_*} tables) and one method per maintenance operation, each returning a single-use action with
 * fluent options that ends in {@code execute()}. For a JVM scheduler; no picocli, nothing printed.
 *
 * <pre>{@code
 * Janitor lake = Janitor.on(dataSource, "lake_meta");
 * ExpireSnapshotsResult expired = lake.expireSnapshots()
 *         .olderThan(Duration.ofDays(7))
 *         .runBudget(Duration.ofMinutes(30))
 *         .execute();                                   // an execute run: dryRun(true) only reports
 * DropOrphanInlineTablesResult dropped = lake.dropOrphanInlineTables().execute();
 * CleanupOldFilesResult cleaned = lake.cleanupOldFiles().dryRun(false).execute();  // storage: a dry run by default
 * CheckResult health = lake.check().execute();          // read-only
 * }</pre>
 *
 * <p>Every action runs one operation of the engine with the engine's own options records, defaults and validation:
 * a setting left alone keeps the default the engine (and the CLI) uses. The two actions that delete files from storage
 * ({@link #cleanupOldFiles()}, {@link #deleteOrphanFiles()}) are dry runs until {@code dryRun(false)} is called. Execute runs take the advisory lock
 * {@code ducklake-maintenance} (see {@link MaintenanceAction#lockName(String)}) for the whole run; dry runs change
 * nothing and take no lock.
 *
 * <p>Thread safety: a {@code Janitor} is immutable and may be shared; each action is single-use and belongs to the
 * thread that calls {@code execute()}, except {@link MaintenanceAction#requestStop()}, which any thread may call.
 * Several actions may run at once, each on its own connection; the advisory lock lets one execute run at a time
 * work on a catalog (another fails with {@link Reason#LOCK_HELD}).
 *
 * <p>Errors: every failure is a {@link JanitorException} whose {@link JanitorException#reason()} is the same reason
 * (and exit code) the CLI reports; messages name user, host, port and database, never a password.
 */
public final class Janitor {

    private final DataSource dataSource;
    private final String schema;
    /** The parsed connection, or the one learned from the DataSource on first use. */
    private volatile ConnectionSpec spec;

    private Janitor(DataSource dataSource, ConnectionSpec spec, String schema) {
        this.dataSource = dataSource;
        this.spec = spec;
        this.schema = schema;
    }

    /**
     * A catalog reached through the caller's DataSource. Nothing is opened here; the first action's
     * {@code execute()} opens one connection to learn user, server and database (for messages), then each run
     * opens its own connections from the DataSource ({@code getConnection()}, closed at the end of the run). The
     * DataSource's own login, socket and TLS settings apply (set a socket timeout above the statement timeout, see
     * {@code docs/library.md}); a pool must allow two connections per run (the first connection of a run is probed
     * for transaction pooling with a second one), and a connection borrowed from it returns with {@code jit = off}
     * and the janitor's idle timeouts set on its session.
     *
     * @param dataSource where connections to the catalog database come from (PostgreSQL's JDBC driver)
     * @param metadataSchema the schema holding the {@code ducklake_*} tables ({@code METADATA_SCHEMA} of DuckLake's
     *     ATTACH; {@code public} when none was given)
     * @return the catalog
     * @throws NullPointerException when an argument is null; an empty schema is refused by {@code execute()}
     *     ({@link Reason#USAGE})
     */
    public static Janitor on(DataSource dataSource, String metadataSchema) {
        return new Janitor(Objects.requireNonNull(dataSource, "dataSource"), null,
                Objects.requireNonNull(metadataSchema, "metadataSchema"));
    }

    /**
     * A catalog reached by a connection string, as the CLI's {@code --catalog} takes it (a JDBC URL, a libpq URI or
     * key/value string, or DuckLake's {@code ducklake:postgres:...} string); what it leaves out comes from the PG*
     * environment variables of this process, the password from the string, else {@code PGPASSWORD}, else
     * {@code ~/.pgpass}. The engine's timeouts apply: login {@code connect_timeout} (default 10 s), every read
     * bounded by the statement timeout plus 30 s (at least 600 s).
     *
     * @param connection the connection string (never echoed in errors: it may hold a password)
     * @param metadataSchema the schema holding the {@code ducklake_*} tables
     * @return the catalog
     * @throws JanitorException {@link Reason#USAGE} when the string is malformed
     * @throws NullPointerException when the schema is null
     */
    public static Janitor on(String connection, String metadataSchema) throws JanitorException {
        Objects.requireNonNull(metadataSchema, "metadataSchema");
        return new Janitor(null, ConnectionSpec.parse(connection, Map.copyOf(System.getenv()), null), metadataSchema);
    }

    /** @return the metadata schema every action of this catalog works on */
    public String metadataSchema() {
        return schema;
    }

    /**
     * Expires old snapshots, with the effect of DuckLake's {@code ducklake_expire_snapshots} (docs/expire-snapshots.md).
     *
     * @return a new action; set a criterion ({@code olderThan}, {@code retainLast} or {@code versions}) unless the
     *     catalog has its own {@code expire_older_than} option
     */
    public ExpireSnapshotsAction expireSnapshots() {
        return new ExpireSnapshotsAction(this);
    }

    /**
     * Drops the leaked inlined-data tables of DuckLake tables no retained snapshot can reach
     * (docs/drop-orphan-inline-tables.md).
     *
     * @return a new action
     */
    public DropOrphanInlineTablesAction dropOrphanInlineTables() {
        return new DropOrphanInlineTablesAction(this);
    }

    /**
     * Deletes the statistics rows of tables and files the catalog no longer has (docs/purge-orphan-stats.md).
     *
     * @return a new action
     */
    public PurgeOrphanStatsAction purgeOrphanStats() {
        return new PurgeOrphanStatsAction(this);
    }

    /**
     * Deletes the files DuckLake scheduled for deletion once they are old enough, then their queue rows
     * (docs/storage-maintenance.md). A dry run unless {@code dryRun(false)} is called.
     *
     * @return a new action
     */
    public CleanupOldFilesAction cleanupOldFiles() {
        return new CleanupOldFilesAction(this);
    }

    /**
     * Deletes the files under the data path that no consulted catalog knows, behind the brakes of
     * docs/storage-safety.md. A dry run unless {@code dryRun(false)} is called.
     *
     * @return a new action
     */
    public DeleteOrphanFilesAction deleteOrphanFiles() {
        return new DeleteOrphanFilesAction(this);
    }

    /**
     * The read-only catalog doctor: every known kind of damage, with its fix (docs/check.md).
     *
     * @return a new action
     */
    public CheckAction check() {
        return new CheckAction(this);
    }

    /**
     * The connection of the runs: parsed, or learned from the DataSource once (then kept).
     *
     * @return the connection specification
     * @throws JanitorException {@link Reason#CONNECTION} when the DataSource's first connection fails
     */
    ConnectionSpec spec() throws JanitorException {
        ConnectionSpec s = spec;
        if (s == null) {
            synchronized (this) {
                s = spec;
                if (s == null) {
                    s = ConnectionSpec.fromDataSource(dataSource);
                    spec = s;
                }
            }
        }
        return s;
    }

    /** @return the catalog for messages: schema and {@code user@host:port/database} once known; never a password */
    @Override
    public String toString() {
        ConnectionSpec s = spec;
        return "Janitor[" + (s == null ? "DataSource" : s.describe()) + ", schema " + schema + "]";
    }
}
