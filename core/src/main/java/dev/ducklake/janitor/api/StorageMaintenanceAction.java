package dev.ducklake.janitor.api;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.ops.files.AgeThreshold;
import dev.ducklake.janitor.ops.files.ConsultOptions;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.ops.files.ParallelDeletes;
import dev.ducklake.janitor.ops.files.StoreOpener;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.storage.FileStores;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the two actions on the catalog's files in storage share ({@code cleanup-old-files}, {@code delete-orphan-files})
 * besides the run settings of {@link MaintenanceAction}: where the files are (the data path and the store that serves
 * it), how old a file must be, how many deletes are in flight, which other catalogs are read before anything is
 * deleted, and where each file's event goes. Each setting maps onto the flag of the same name of the CLI command, with
 * the same default and the same checks (made by the engine's options records when {@code execute()} starts).
 *
 * <p>Safety: both actions are a dry run until {@code dryRun(false)} is called (the CLI asks on a terminal before it
 * deletes); every other catalog that may reference files under the data path is read first, and one that cannot be
 * read refuses the run as in the CLI (nothing listed or deleted).
 *
 * @param <A> the concrete action (setters return it)
 * @param <R> the operation's result record
 */
public abstract class StorageMaintenanceAction<A extends StorageMaintenanceAction<A, R>, R extends MaintenanceResult>
        extends MaintenanceAction<A, R> {

    /** The run settings a storage action starts from: {@link RunOptions#defaults()} (the CLI's), as a dry run. */
    static final RunOptions DEFAULTS = RunOptions.builder().dryRun(true).build();

    private String dataPath;
    private AgeThreshold olderThan;
    private Duration minAge;
    private boolean allowShortRetention;
    private int deleteConcurrency;
    private final List<String> excludedSchemas = new ArrayList<>();
    private final List<String> alsoCatalogs = new ArrayList<>();
    private boolean consultServer = true;
    private StoreOpener store = StoreOpener.of(FileStores.Options.DEFAULT);
    private FileListener files = FileListener.NONE;

    StorageMaintenanceAction(Janitor janitor) {
        super(janitor);
    }

    @SuppressWarnings("unchecked")
    private A self() {
        return (A) this;
    }

    /**
     * Use this data path instead of the catalog's {@code data_path} (DuckLake's {@code OVERRIDE_DATA_PATH}: the lake is
     * mounted elsewhere where this JVM runs): a local path, {@code file://}, {@code s3://} or {@code s3a://} URL;
     * relative paths in the catalog resolve against it. CLI {@code --data-path}. Default: the catalog's data_path
     * ({@code ducklake_metadata}).
     *
     * @param path the data path, or null for the catalog's
     * @return this action
     */
    public A dataPath(String path) {
        this.dataPath = path;
        return self();
    }

    /**
     * Act on files (queue rows) older than this, counted back from now at the start of the run. CLI
     * {@code --older-than}. Default: the catalog's {@code delete_older_than} option, else 2 days (as DuckLake); never
     * younger than {@link #minAge}: an age under it fails the run with {@link Reason#USAGE}, as does a negative one.
     *
     * @param age the age, 0 or more
     * @return this action
     */
    public A olderThan(Duration age) {
        this.olderThan = AgeThreshold.of(Objects.requireNonNull(age, "age"));
        return self();
    }

    /**
     * Act on files (queue rows) older than this instant. CLI {@code --older-than} with an instant. Default: as
     * {@link #olderThan(Duration)}; an instant less than {@link #minAge} ago fails the run with {@link Reason#USAGE}.
     *
     * @param cutoff the instant
     * @return this action
     */
    public A olderThan(Instant cutoff) {
        this.olderThan = AgeThreshold.of(Objects.requireNonNull(cutoff, "cutoff"));
        return self();
    }

    /**
     * The floor of {@link #olderThan}: a younger age is refused, and a catalog option younger than it is raised to it,
     * because a younger file may belong to a commit in flight or be read by a running query. CLI {@code --min-age}.
     * Default: the operation's floor (cleanup-old-files 1 hour, delete-orphan-files 24 hours); below it only with
     * {@link #allowShortRetention}, negative never ({@link Reason#USAGE}).
     *
     * @param age the floor, 0 or more
     * @return this action
     */
    public A minAge(Duration age) {
        this.minAge = Objects.requireNonNull(age, "age");
        return self();
    }

    /**
     * Allow a {@link #minAge} below the operation's floor; logged as a warning and shown in the result
     * ({@code allowShortRetention}). CLI {@code --allow-short-retention}. Default false.
     *
     * @param allow whether the floor may be undercut
     * @return this action
     */
    public A allowShortRetention(boolean allow) {
        this.allowShortRetention = allow;
        return self();
    }

    /**
     * Delete calls in flight at once (S3 DeleteObjects requests of up to 1,000 keys, local unlinks in pieces), 1 to
     * {@value ParallelDeletes#MAX_CONCURRENCY}; throttling lowers it until calls succeed. CLI {@code --delete-concurrency}.
     * Default 0: the store's (8 on an object store, 4 on a local file system); a value outside 0 to
     * {@value ParallelDeletes#MAX_CONCURRENCY} fails the run with {@link Reason#USAGE}.
     *
     * @param calls the calls in flight, or 0 for the store's default
     * @return this action
     */
    public A deleteConcurrency(int calls) {
        this.deleteConcurrency = calls;
        return self();
    }

    /**
     * Do not refuse the run because this DuckLake catalog cannot be read: only for one whose data path you have proven
     * disjoint from this one (its files then count as unknown). {@code SCHEMA} in this database, {@code DATABASE/SCHEMA}
     * in another database of the server, {@code DATABASE/*} a whole database the role cannot connect to. Repeatable;
     * each exclusion is logged and listed in the result. CLI {@code --exclude-catalog-schema}. Default none: an
     * unreadable catalog that may reach the data path stops the run with {@link Reason#PERMISSION_DENIED}.
     *
     * @param name the catalog, not blank ({@link Reason#USAGE})
     * @return this action
     */
    public A excludeCatalogSchema(String name) {
        excludedSchemas.add(Objects.requireNonNull(name, "name"));
        return self();
    }

    /**
     * Also read the DuckLake catalogs of this database before deleting anything, whatever their data path: a connection
     * string of any form {@link Janitor#on(String, String)} takes (other servers too), with {@code metadata_schema=NAME}
     * (key/value) or {@code ?metadata_schema=NAME} (URI) for one catalog, else every catalog of the database. What it
     * leaves out comes from the catalog's connection, then the PG* variables. Repeatable. CLI {@code --also-catalog}.
     * Default none. A malformed string fails the run with {@link Reason#USAGE}.
     *
     * @param connection the connection string (never echoed in errors)
     * @return this action
     */
    public A alsoCatalog(String connection) {
        alsoCatalogs.add(Objects.requireNonNull(connection, "connection"));
        return self();
    }

    /**
     * Whether the server's other databases are searched for DuckLake catalogs whose data path overlaps (a database the
     * role cannot connect to stops the run unless excluded as {@code DATABASE/*}). CLI {@code --no-consult-server} turns
     * it off. Default true. A {@link Janitor#on(javax.sql.DataSource, String) DataSource} reaches its one database only:
     * with it the run fails with {@link Reason#USAGE} unless this is false (or use a connection string).
     *
     * @param consult whether to search the server's other databases
     * @return this action
     */
    public A consultServer(boolean consult) {
        this.consultServer = consult;
        return self();
    }

    /**
     * How to reach an S3 data path (region, endpoint of an S3-compatible store, path-style addressing), as the CLI's
     * {@code --s3-region}, {@code --s3-endpoint}, {@code --s3-path-style}; credentials always come from the AWS SDK's
     * default chain. Replaces a {@link #store} given before. Default {@link FileStores.Options#DEFAULT}: AWS, the SDK's
     * region chain else us-east-1, virtual-host addressing.
     *
     * @param settings the settings
     * @return this action
     */
    public A s3(FileStores.Options settings) {
        this.store = StoreOpener.of(Objects.requireNonNull(settings, "settings"));
        return self();
    }

    /**
     * Open the data path's store this way instead (a store built with the caller's own client); the run closes the
     * store it returns, and binds its calls to the run's budget and stop request. Replaces {@link #s3} given before.
     * Default: the janitor's stores ({@link StoreOpener#of}) with {@link FileStores.Options#DEFAULT}.
     *
     * @param opener called once per run with the data path in use (after {@link #dataPath})
     * @return this action
     */
    public A store(StoreOpener opener) {
        this.store = Objects.requireNonNull(opener, "opener");
        return self();
    }

    /**
     * Where each file's event goes (deleted, would delete, kept, failed; address, size, modification time, reason),
     * called on the threads of the run. Default: nowhere ({@link FileListener#NONE}); the result carries the counts
     * and findings either way.
     *
     * @param listener the listener
     * @return this action
     */
    public A files(FileListener listener) {
        this.files = Objects.requireNonNull(listener, "listener");
        return self();
    }

    /** @return the data path override, or null */
    final String dataPathOverride() {
        return dataPath;
    }

    /** @return the age limit, or null for the catalog's option */
    final AgeThreshold olderThanOrNull() {
        return olderThan;
    }

    /**
     * @param floor the operation's floor
     * @return the floor in use
     */
    final Duration minAgeOr(Duration floor) {
        return minAge == null ? floor : minAge;
    }

    /** @return whether the floor may be undercut */
    final boolean shortRetentionAllowed() {
        return allowShortRetention;
    }

    /** @return the delete calls in flight, 0 for the store's default */
    final int concurrency() {
        return deleteConcurrency;
    }

    /** @return the store opener */
    final StoreOpener opener() {
        return store;
    }

    /** @return the file listener */
    final FileListener fileListener() {
        return files;
    }

    /**
     * The catalogs read before anything is deleted, as the CLI's flags give them.
     *
     * @param spec the swept catalog's connection (the server, and the defaults of {@link #alsoCatalog})
     * @return the options
     * @throws JanitorException {@link Reason#USAGE} for a malformed {@link #alsoCatalog} string
     */
    final ConsultOptions consult(ConnectionSpec spec) throws JanitorException {
        List<ConnectionSpec.CatalogReference> refs = new ArrayList<>();
        for (String a : alsoCatalogs) {
            try {
                refs.add(ConnectionSpec.parseCatalogReference(a, Map.copyOf(System.getenv()), spec));
            } catch (JanitorException e) {
                throw new JanitorException(e.reason(), "alsoCatalog: " + e.getMessage(), e);
            }
        }
        return ConsultOptions.defaults().withExcludedSchemas(excludedSchemas).withAlsoCatalogs(refs)
                .withConsultServer(consultServer).withServer(spec);
    }
}
