package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.Transactions;
import dev.ducklake.janitor.pg.AdvisoryLock;
import dev.ducklake.janitor.pg.Pooling;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.ops.files.CatalogRecheck;
import dev.ducklake.janitor.ops.files.CatalogWatermark;
import dev.ducklake.janitor.ops.files.CatalogFiles;
import dev.ducklake.janitor.ops.files.ConsultedCatalogs;
import dev.ducklake.janitor.ops.files.FileAges;
import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.ops.files.KnownFiles;
import dev.ducklake.janitor.ops.files.CatalogRetry;
import dev.ducklake.janitor.ops.files.RunControl;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.PathResolver;
import dev.ducklake.janitor.storage.StorageException;
import dev.ducklake.janitor.storage.StorageLocation;
import dev.ducklake.janitor.storage.StoredObject;

import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code delete-orphan-files}: deletes files under the data path that no catalog row knows.
 *
 * <p>Candidates are what DuckLake 1.5.5's {@code ducklake_delete_orphaned_files} would consider
 * ({@code GetOrphanFilesForCleanup} in {@code src/storage/ducklake_metadata_manager.cpp}: files listed under
 * {@code data_path || '**'} whose name ends in {@code .parquet} or {@code .puffin}, not in the known set, last
 * modified before the cutoff; default cutoff from {@code delete_older_than} else 2 days), with these safeguards:
 * <ul>
 *   <li>the known set ({@link KnownFiles}) covers every catalog in the database whose data path overlaps, and is
 *       compared in canonical form, so a second spelling of a URL or a trailing slash cannot make a live file
 *       look orphaned;</li>
 *   <li>the listing is under the data path as a prefix ending in {@code /} (DuckLake's glob on a data path
 *       without a trailing slash also matched sibling directories);</li>
 *   <li>memory does not grow with the number of files: the store's listing (in byte order) is merged with the
 *       known addresses streamed from PostgreSQL ({@code ORDER BY … COLLATE "C"}); candidates are spilled to a
 *       temporary file named per run ({@link SpillFiles}; those of earlier runs that are gone are removed at start);</li>
 *   <li>brakes before anything is deleted: a root or empty data path ({@link Reason#BRAKE_ROOT_PATH}), a candidate
 *       whose path equals a known file's but for scheme or authority ({@link NearMatches}, {@link Reason#BRAKE_NEAR_MATCH}), no known
 *       file among the listed ones ({@link Reason#BRAKE_NO_KNOWN_FILES}), DuckLake-named candidates in a table folder
 *       no consulted catalog knows ({@link TableFolders}, {@link Reason#BRAKE_UNKNOWN_TABLE_FOLDERS}), candidates above
 *       the ratio ({@link Reason#BRAKE_ORPHAN_RATIO}); under an inventory brakes 15 and 16 rest only on what the store
 *       or the catalog confirms ({@link ConfirmedBase}); catalog file rows whose location cannot be worked out stop the
 *       deletion (finding).</li>
 * </ul>
 */
public final class OrphanSweep {

    static final int MAX_FINDINGS = 100;

    private OrphanSweep() {
    }

    /**
     * DuckLake's file-name rule for orphan candidates. DuckLake 1.5.5 (extension build {@code d8a1881e},
     * {@code GetOrphanFilesForCleanup}) considers {@code suffix(filename, '.parquet')} only, case-sensitive;
     * later sources add {@code .puffin} (deletion vectors), which {@code includePuffin} selects.
     *
     * @param address the listed address
     * @param includePuffin whether {@code .puffin} files count too
     * @return whether the file is a candidate by name
     */
    public static boolean ducklakeFileName(String address, boolean includePuffin) {
        return address.endsWith(".parquet") || includePuffin && address.endsWith(".puffin");
    }

    /**
     * Runs the sweep on a plain connection: inspects the catalog, takes the advisory lock for execute runs, then
     * {@link #execute}. The CLI goes through {@link DeleteOrphanFiles} (the shared runtime) instead.
     *
     * @param c a connection to the catalog database (autocommit is switched off inside; the caller closes it)
     * @param store the store serving the data path
     * @param o the options
     * @param listener receives every candidate (would_delete / deleted / failed) and progress lines
     * @return what was done
     * @throws JanitorException the brakes (14, 15, 16, 17, 18), STORAGE when listing or deleting fails as a whole, the
     *     inspection's reasons, USAGE for an age under --min-age, LOCK_HELD
     * @throws SQLException on database errors
     */
    public static DeleteOrphanFilesResult run(Connection c, FileStore store, DeleteOrphanFilesOptions o, FileListener listener)
            throws JanitorException, SQLException {
        Pooling.requireSessionBound(c, null, "delete-orphan-files", "temporary tables, a cursor held across transactions (WITH HOLD) and,"
                + " to execute, a session advisory lock");
        c.setAutoCommit(true);
        CatalogInspector.inspect(c, o.schema());
        AdvisoryLock lock = o.dryRun() ? null : AdvisoryLock.acquire(c, o.run().lockName(), o.schema());
        try {
            return execute(c, store, o, listener, RunControl.unbounded(o.run()));
        } finally {
            if (lock != null) {
                lock.release(c);
            }
        }
    }

    /**
     * The brake on the data path alone, checked before any store is opened.
     *
     * @param resolver the data path in use
     * @param o the options
     * @return the data path as a prefix
     * @throws JanitorException BRAKE_ROOT_PATH
     */
    public static StorageLocation checkRoot(PathResolver resolver, DeleteOrphanFilesOptions o) throws JanitorException {
        String host = StorageLocation.foreignFileHost(resolver.dataPath());
        if (host != null) {
            // parsed, file://HOST/lake/ is HOST/lake/ below the working directory: another directory than the lake's
            throw new JanitorException(Reason.BRAKE_ROOT_PATH, "The data path " + CatalogInspector.printable(resolver.dataPath())
                    + " is a file URI of another host (" + CatalogInspector.printable(host) + "), not a location on this"
                    + " machine. Nothing was deleted. Point --data-path at the lake as this machine reaches it (a local path,"
                    + " file:///path or an object-store URL).");
        }
        StorageLocation root;
        try {
            root = resolver.dataLocation();
            resolver.listingLocation(); // the prefix as spelled is what is listed: refused when it cannot be told
        } catch (IllegalArgumentException e) {
            throw new JanitorException(Reason.BRAKE_ROOT_PATH, "The data path " + CatalogInspector.printable(resolver.dataPath())
                    + " is not a location this tool can sweep: " + e.getMessage());
        }
        if (root.isRoot() && !o.allowRootPath()) {
            throw new JanitorException(Reason.BRAKE_ROOT_PATH, "The data path " + resolver.shown() + " is a root: every file"
                    + " stored there would be compared with this catalog. Nothing was deleted. Pass --allow-root-data-path to"
                    + " sweep it anyway.");
        }
        return root;
    }

    /**
     * The sweep proper, on a catalog already inspected and (for execute runs) locked.
     *
     * @param c the session's connection (autocommit is switched off inside and restored)
     * @param store the store serving the data path
     * @param o the options
     * @param listener receives every candidate and progress lines
     * @param control stop flag and figures
     * @return what was done
     * @throws JanitorException as {@link #run}
     * @throws SQLException on database errors
     */
    public static DeleteOrphanFilesResult execute(Connection c, FileStore store, DeleteOrphanFilesOptions o,
                                                  FileListener listener, RunControl control) throws JanitorException, SQLException {
        o.validate();
        if (o.allowShortRetention() && o.minAge().compareTo(DeleteOrphanFilesOptions.FLOOR) < 0) {
            control.recorder().warn("--allow-short-retention: --min-age " + dev.ducklake.janitor.Durations.format(o.minAge())
                    + " is below the 24 h floor; files"
                    + " that young may belong to a commit in flight");
        }
        c.setAutoCommit(true);
        // --lock-timeout on the session, for every catalog statement (its help says so); retried as 55P03 in CatalogRetry
        Transactions.setSessionLockTimeout(c, control.lockTimeout());
        PathResolver resolver = CatalogFiles.resolver(c, o.schema(), o.dataPathOverride());
        StorageLocation root = checkRoot(resolver, o);
        // messages name the data path as the catalog spells it (and the store lists it), not its canonical form
        String shown = resolver.shown();
        FileAges.Cutoff cutoff = FileAges.cutoff(c, o.schema(), o.olderThan(), o.minAge(), Instant.now());
        Path spill = null;
        try (ConsultedCatalogs consulted = ConsultedCatalogs.find(c, o.schema(), resolver, o.consult(), control)) {
            List<String> leftToOthers = RunPasses.leftToOtherPasses(c, o.schema(), root, o.consult().runSchemas(),
                    o.dataPathOverride());
            c.setAutoCommit(false);
            // before the known set: the re-check before each delete round reads only the file rows committed after it
            CatalogWatermark watermark = CatalogWatermark.read(c, consulted);
            KnownFiles known = KnownFiles.load(c, consulted, true);
            // named per run; spill files of earlier runs that are gone (SIGKILL runs no finally) are removed first
            SpillFiles spills = SpillFiles.ofThisProcess();
            spills.removeStale(control.recorder()::info);
            spill = spills.create();
            // a dry run's lines say what the execute run would do, a refused delete included
            DryRunRefusals dryRun = o.dryRun() ? new DryRunRefusals(store, listener) : null;
            Survey s = survey(c, store, o.inventory(), root, resolver.listingLocation(), cutoff.cutoff(), known, spill,
                    o.includePuffin(), dryRun != null ? dryRun : FileListener.NONE, leftToOthers, control);
            List<String> findings = new ArrayList<>();
            if (s.stoppedDuring != null) {
                // an incomplete listing proves nothing: no brake is judged, nothing is deleted
                control.stoppedByBounds();
                control.recorder().warn((control.stopRequested() ? "stopped (SIGTERM/SIGINT)" : "the run budget ran out")
                        + " while listing " + shown + " after " + s.listed + " files; nothing was deleted, the"
                        + " counts are those of the files listed so far, and the next run lists again from the start");
                return result(o, resolver, cutoff, consulted, known, s, new long[] {0, 0, 0, 0, 0}, findings, control, null);
            }
            if (s.inventory.otherHost > 0) {
                control.recorder().warn(s.inventory.otherHost + (s.inventory.otherHost == 1 ? " entry" : " entries")
                        + " of the inventory " + o.inventory() + " name a file"
                        + " on another host (file://HOST/…, e.g. " + CatalogInspector.printable(s.inventory.otherHostExample)
                        + "): not a local address of this store, ignored as entries outside the data path are; an inventory"
                        + " of this store spells its files as local paths, file:///path or file://localhost/path");
            }
            if (s.listed == 0 && known.rows() > 0) {
                // nothing can be deleted, so no brake applies; but an empty listing of a lake whose catalogs know files
                // is a wrong data path, a truncated inventory or lost data, not a clean lake
                control.recorder().warn((o.inventory() == null ? "the listing of " + shown + " holds no file"
                        : "the inventory " + o.inventory() + " has no entry under " + shown)
                        + ", yet the consulted catalogs know "
                        + known.rows() + " paths: check the data path (or --data-path)" + (o.inventory() == null ? ""
                        : " and that the inventory is complete") + "; `check --storage` lists the catalog's missing files");
            }
            if (s.candidates > 0) {
                NearMatches.Found near = NearMatches.find(known, root, spill);
                if (near.total() > 0) {
                    throw nearMatch(near, shown);
                }
            }
            if (s.candidates > 0 && (s.keptKnown == 0 || s.knownUnconfirmed != null)) {
                throw new JanitorException(Reason.BRAKE_NO_KNOWN_FILES, (s.keptKnown == 0 ? "None of the " + s.listed
                        + " files listed under " + shown + " is known to the catalog (" + known.rows() + " known paths)"
                        : "Of the " + s.keptKnown + " inventory entries under " + shown + " that the catalog knows, "
                        + s.knownUnconfirmed) + ", yet " + s.candidates + " would be deleted: the data path or --data-path"
                        + " probably points at the wrong place" + (o.inventory() == null ? "" : ", or the inventory is not of this"
                        + " store") + ". Nothing was deleted.");
            }
            TableFolders.Unknown unknownFolders = s.folders.unknown(known).shown(resolver);
            if (unknownFolders.total() > 0) {
                String list = String.join(", ", unknownFolders.folders())
                        + (unknownFolders.total() > unknownFolders.folders().size() ? ", …" : "");
                if (!o.allowUnknownTableFolders()) {
                    throw new JanitorException(Reason.BRAKE_UNKNOWN_TABLE_FOLDERS, unknownFolders.total() + " folder(s) under "
                            + shown + " hold DuckLake data or delete files among the candidates, no file a"
                            + " consulted catalog knows, and are the table folder of no consulted catalog ("
                            + String.join(", ", consulted.labels()) + "): " + list + ". They look like the table folders of a"
                            + " catalog this run cannot see (another server sharing the storage, a database the role cannot"
                            + " connect to). Nothing was deleted. Name that catalog with --also-catalog, or pass"
                            + " --allow-unknown-table-folders if they really are orphans.");
                }
                control.recorder().warn("--allow-unknown-table-folders: deleting the candidates of " + unknownFolders.total()
                        + " DuckLake table folder(s) no consulted catalog knows: " + list);
            }
            ConfirmedBase.checkRatio(s, o, shown);
            long[] df = {0, 0, 0, 0, 0};
            if (dryRun != null) {
                // what would go and what the delete would refuse (exit 13, as the execute run)
                df[0] = s.candidates - dryRun.refused();
                df[3] = Math.max(0, s.candidateBytes - dryRun.refusedBytes());
                df[1] = dryRun.refused();
            }
            if (known.unresolved() > 0 && s.candidates > 0) {
                findings.add(known.unresolved() + " catalog file rows have a location that cannot be worked out (a relative"
                        + " path whose table or schema row is missing, or a NULL path); the candidates were not deleted"
                        + " because one of them could be such a file");
            } else if (!o.dryRun()) {
                df = OrphanDeletes.delete(store, spill, listener, findings, c, consulted,
                        CatalogRecheck.of(c, consulted, watermark),
                        control, s, o.deleteConcurrency(),
                        AdvisoryLock.named(o.run().lockName(), o.schema()), o.inventory() == null ? null : cutoff.cutoff());
            }
            if (s.stoppedDuring == null) {
                control.batchDone();
            }
            return result(o, resolver, cutoff, consulted, known, s, df, findings, control, unknownFolders);
        } catch (IOException e) {
            throw new JanitorException(Reason.STORAGE, "The temporary candidate list could not be written: " + e.getMessage(), e);
        } finally {
            if (spill != null) {
                try {
                    Files.deleteIfExists(spill);
                } catch (IOException ignored) {
                    // a temp file left behind
                }
            }
            if (!c.getAutoCommit()) {
                c.rollback();
                c.setAutoCommit(true);
            }
        }
    }

    private static DeleteOrphanFilesResult result(DeleteOrphanFilesOptions o, PathResolver resolver, FileAges.Cutoff cutoff,
                                                  ConsultedCatalogs consulted, KnownFiles known, Survey s, long[] df,
                                                  List<String> findings, RunControl control, TableFolders.Unknown unknownFolders) {
        return new DeleteOrphanFilesResult(o.schema(), resolver.dataPath(), cutoff.cutoff().toString(), cutoff.source(),
                o.dryRun(), consulted.labels(), known.rows(), known.unresolved(), s.listed, s.keptKnown, s.keptByName,
                s.keptYoung, s.keptNonCanonical, s.candidates, s.candidateBytes, df[0], df[3], df[1], df[2],
                o.allowShortRetention(), List.copyOf(findings), findings.size() + df[4], control.figures(), consulted.excluded(),
                consulted.notConsulted(), unknownFolders == null ? List.of() : unknownFolders.folders(),
                unknownFolders == null ? 0 : unknownFolders.total(), s.leftToOthersFiles, s.stoppedDuring,
                o.inventory() == null ? "store" : "inventory", s.inventory.read, s.inventoryGone, s.inventoryModified,
                s.inventoryStatFailed);
    }

    /** The swept prefix as messages name it ({@link PathResolver#shown()}): as listed, a local one canonical. */
    private static String shownRoot(StorageLocation root, StorageLocation listRoot) {
        return "file".equals(listRoot.scheme()) ? root.asPrefix().canonical() : listRoot.spelling();
    }

    /** How many listed files pass between two looks at the stop request and the run budget (besides every store call). */
    private static final int LISTING_CHECK_EVERY = 1000;

    private static JanitorException nearMatch(NearMatches.Found near, String shown) {
        List<String> pairs = new ArrayList<>();
        for (String[] p : near.examples()) {
            pairs.add("listed " + CatalogInspector.printable(p[0]) + ", a catalog names " + CatalogInspector.printable(p[1]));
        }
        return new JanitorException(Reason.BRAKE_NEAR_MATCH, near.total() + " orphan candidate(s) under " + shown
                + " have the path of a file a consulted catalog names under another scheme, authority or host ("
                + String.join("; ", pairs) + (near.total() > pairs.size() ? "; …" : "") + "). The two spellings may name one"
                + " object (another scheme, endpoint or host name of the same store), which would then be live. Nothing was"
                + " deleted.");
    }

    /** Counts of the merge. */
    static final class Survey {
        final TableFolders folders;
        final List<String> leftToOthers;
        long leftToOthersFiles;
        long listed;
        long keptKnown;
        long keptByName;
        long keptYoung;
        long keptNonCanonical;
        long candidates;
        long candidateBytes;
        /** Known files, once per canonical address (the ratio's base under an inventory, {@link ConfirmedBase}). */
        long knownDistinct;
        /** The first known entries of an inventory, as it spells them, and why the store confirmed none (or null). */
        final List<String> knownSample = new ArrayList<>();
        String knownUnconfirmed;
        /** Where a stop or the run budget cut the run short ("listing", "deleting"), or null. */
        String stoppedDuring;
        /** What reading an inventory found (zero when the store was listed). */
        final Inventory.Counts inventory = new Inventory.Counts();
        /** Inventory candidates the stat before their delete round found gone, modified since (or timeless and young), or could not stat. */
        long inventoryGone;
        long inventoryModified;
        long inventoryStatFailed;

        Survey(String prefix, List<String> leftToOthers) {
            this.folders = new TableFolders(prefix);
            this.leftToOthers = leftToOthers;
        }

        /** Whether a listed file is left to the pass of another schema of the run (counted there, not here). */
        boolean leftToOtherPass(String canonical) {
            for (String p : leftToOthers) {
                if (canonical.startsWith(p)) {
                    leftToOthersFiles++;
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * Merges the store's listing (or an inventory, when one is given: an entry without a last-modified time is then a
     * candidate too, its delete round stats it first) with the known addresses, both in byte order, and writes the
     * candidates to the spill file (address, size, modification time in epoch milliseconds). The store lists
     * {@code listRoot}, the data path as its keys are spelled ({@link PathResolver#listingLocation()}); addresses are
     * compared in their canonical forms under {@code root}.
     */
    static Survey survey(Connection c, FileStore store, String inventory, StorageLocation root, StorageLocation listRoot,
                         Instant cutoff, KnownFiles known, Path spill, boolean includePuffin, FileListener listener,
                         List<String> leftToOthers, RunControl control) throws JanitorException, SQLException, IOException {
        String prefix = root.asPrefix().canonical();
        String spelled = listRoot.spelling();
        Survey s = new Survey(prefix, leftToOthers);
        boolean confirmLater = inventory != null;
        try (KnownFiles.Cursor<String> k = known.ordered(prefix);
             FileStore.Listing listing = confirmLater ? Inventory.open(inventory, store, root, spill.toAbsolutePath().getParent(),
                     s.inventory)
                     : store.list(listRoot);
             DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(spill)))) {
            String kc = k.hasNext() ? k.next() : null;
            String prev = null;
            String prevAddress = null;
            boolean prevKnown = false;
            while (listing.hasNext()) {
                StoredObject obj = listing.next();
                if (s.listed % LISTING_CHECK_EVERY == LISTING_CHECK_EVERY - 1 && control.exhausted()) {
                    s.stoppedDuring = "listing";
                    break;
                }
                String cur = obj.location().canonical();
                if (!cur.startsWith(prefix)) {
                    continue;
                }
                if (s.leftToOtherPass(cur)) {
                    continue;
                }
                s.listed++;
                if (!obj.canonicalBelow(spelled, prefix)) {
                    // below the data path as spelled, a key with a doubled slash, a '.' segment, a backslash or a %XX escape
                    // of an unreserved character: DuckLake never writes one, and its canonical form sorts elsewhere than
                    // the listing put it; or (an inventory's entry) a key under another spelling of the data path
                    s.keptNonCanonical++;
                    continue;
                }
                boolean isKnown;
                int order = prev == null ? 1 : StorageLocation.compareCodePoints(cur, prev);
                if (order < 0) {
                    throw new JanitorException(Reason.STORAGE, "The store listed " + obj.address() + " after " + prevAddress
                            + ", out of canonical byte order (a key with a doubled slash or a percent-escape?); a merge would"
                            + " be unsafe. Nothing was deleted.");
                } else if (order == 0) {
                    isKnown = prevKnown;
                } else {
                    while (kc != null && StorageLocation.compareCodePoints(kc, cur) < 0) {
                        kc = k.hasNext() ? k.next() : null;
                    }
                    isKnown = kc != null && kc.equals(cur);
                }
                prev = cur;
                prevAddress = obj.address();
                prevKnown = isKnown;
                if (isKnown && order != 0) {
                    s.knownDistinct++;
                    if (confirmLater && s.knownSample.size() < ConfirmedBase.KNOWN_SAMPLE) {
                        s.knownSample.add(obj.address());
                    }
                }
                // from an inventory, an entry without a time is left to the stat of its delete round
                boolean old = obj.lastModified() != null ? obj.lastModified().isBefore(cutoff) : confirmLater;
                boolean candidate = !isKnown && ducklakeFileName(obj.address(), includePuffin) && old;
                s.folders.observe(cur, candidate);
                if (isKnown) {
                    s.keptKnown++;
                } else if (!ducklakeFileName(obj.address(), includePuffin)) {
                    s.keptByName++;
                } else if (!old) {
                    s.keptYoung++;
                } else {
                    s.candidates++;
                    if (obj.sizeBytes() > 0) {
                        s.candidateBytes += obj.sizeBytes();
                    }
                    out.writeUTF(obj.address());
                    out.writeLong(obj.sizeBytes());
                    out.writeLong(obj.lastModified() == null ? Long.MIN_VALUE : obj.lastModified().toEpochMilli());
                    listener.file("would_delete", obj.address(), obj.sizeBytes(), obj.lastModified(), null);
                }
                if (s.listed % 100_000 == 0) {
                    listener.progress(String.format("listed %d files: %d known, %d candidates", s.listed, s.keptKnown, s.candidates));
                }
            }
            if (confirmLater && s.stoppedDuring == null && s.candidates > 0 && !s.knownSample.isEmpty()) {
                // brake 15 under an inventory rests on a known file the store holds, not on the inventory's word
                s.knownUnconfirmed = ConfirmedBase.confirmKnown(store, s.knownSample);
            }
            s.folders.finish();
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof StorageException se && se.kind() == StorageException.Kind.STOPPED) {
                s.stoppedDuring = "listing";
            } else if (e.getCause() instanceof StorageException se) {
                throw new JanitorException(Reason.STORAGE, "Listing " + shownRoot(root, listRoot) + " failed (" + se.kind() + "): "
                        + se.getMessage() + ". Nothing was deleted.", se);
            } else {
                throw e;
            }
        } catch (StorageException se) {
            if (se.kind() != StorageException.Kind.STOPPED) {
                throw new JanitorException(Reason.STORAGE, "Listing " + shownRoot(root, listRoot) + " failed (" + se.kind() + "): "
                        + se.getMessage() + ". Nothing was deleted.", se);
            }
            s.stoppedDuring = "listing";
        }
        c.commit();
        return s;
    }

}
