package dev.ducklake.janitor.storage;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** The sizes {@link S3FileStore#listedSizes} gives: from range listings of the keys' folders instead of a HeadObject per key. */
final class S3Sizes {

    private final S3Requests requests;
    private final S3Listings listings;
    private final int listConcurrency;

    S3Sizes(S3Requests requests, S3Listings listings, int listConcurrency) {
        this.requests = requests;
        this.listings = listings;
        this.listConcurrency = listConcurrency;
    }

    /**
     * Sizes from a listing instead of a HeadObject per key: the keys are grouped by bucket and folder, in S3's byte
     * order, so that a run of them is one key range. Each folder's keys are cut into runs of about
     * {@value #PAGE_KEYS} (at most {@code LIST_CONCURRENCY} runs a folder), and every run's range is first read one
     * page from just before its smallest key, all at once: keys that fill their range (cleanup-old-files reads its
     * queue in path order) are sized by that one page a run. Where a page ends before its run's largest key, the keys
     * past it are cut into as many runs as the page's density says they fill pages (at least {@value #SIZE_RUN_KEYS}
     * keys a run, at most {@code LIST_CONCURRENCY}), listed at once, each stopping after {@link #sizeListingPages}
     * pages (beyond that a HeadObject per key, {@value AbstractFileStore#OBJECT_STORE_DELETE_CONCURRENCY} at a time, is
     * cheaper; the keys left unknown are stat-ed by the caller). A listing stops at its run's largest key. A key that
     * a listing passed over (it went on to a later key, or the folder ended) is missing (-1). A listing failure other
     * than a stop leaves the sizes of the keys it did not reach unknown.
     */
    Map<String, Long> listedSizes(List<String> addresses) throws StorageException {
        Map<String, java.util.TreeMap<String, String>> byFolder = new LinkedHashMap<>();
        for (String a : addresses) {
            String[] bk;
            try {
                bk = S3FileStore.split(a);
            } catch (StorageException e) {
                continue;
            }
            int slash = bk[1].lastIndexOf('/');
            String folder = bk[0] + "/" + (slash < 0 ? "" : bk[1].substring(0, slash + 1));
            byFolder.computeIfAbsent(folder, f -> new java.util.TreeMap<>(StorageLocation.BYTE_ORDER)).put(bk[1], a);
        }
        // first one page per 1,000 keys of each folder (at most LIST_CONCURRENCY runs a folder), all at once
        List<List<Map.Entry<String, String>>> runKeys = new ArrayList<>();
        List<String[]> runFolders = new ArrayList<>();
        List<Callable<Run>> firstPages = new ArrayList<>();
        for (Map.Entry<String, java.util.TreeMap<String, String>> f : byFolder.entrySet()) {
            String bucket = f.getKey().substring(0, f.getKey().indexOf('/'));
            String prefix = f.getKey().substring(bucket.length() + 1);
            List<Map.Entry<String, String>> keys = new ArrayList<>(f.getValue().entrySet());
            int parts = Math.max(1, Math.min(listConcurrency, (keys.size() + PAGE_KEYS - 1) / PAGE_KEYS));
            for (int i = 0; i < parts; i++) {
                List<Map.Entry<String, String>> run = keys.subList(i * keys.size() / parts, (i + 1) * keys.size() / parts);
                runKeys.add(run);
                runFolders.add(new String[] {bucket, prefix});
                firstPages.add(() -> sizeRun(bucket, prefix, run, 1));
            }
        }
        Map<String, Long> sizes = new HashMap<>();
        List<Run> first = runAll(firstPages);
        // then the keys past a first page that did not reach its run's end, in as many runs as its density suggests
        List<Callable<Run>> more = new ArrayList<>();
        for (int i = 0; i < first.size(); i++) {
            Run page = first.get(i);
            sizes.putAll(page.sizes());
            if (page.through() == null) {
                continue; // the run's whole range was listed
            }
            List<Map.Entry<String, String>> keys = runKeys.get(i);
            int done = 0;
            while (done < keys.size() && StorageLocation.compareCodePoints(keys.get(done).getKey(), page.through()) <= 0) {
                done++;
            }
            List<Map.Entry<String, String>> rest = keys.subList(done, keys.size());
            if (rest.isEmpty()) {
                continue;
            }
            long pages = (rest.size() + Math.max(1, done) - 1) / Math.max(1, done); // at the first page's keys per page
            int parts = (int) Math.max(1, Math.min(Math.min(listConcurrency, pages), rest.size() / SIZE_RUN_KEYS));
            String bucket = runFolders.get(i)[0];
            String prefix = runFolders.get(i)[1];
            for (int k = 0; k < parts; k++) {
                List<Map.Entry<String, String>> run = rest.subList(k * rest.size() / parts, (k + 1) * rest.size() / parts);
                more.add(() -> sizeRun(bucket, prefix, run, sizeListingPages(run.size())));
            }
        }
        for (Run r : runAll(more)) {
            sizes.putAll(r.sizes());
        }
        return sizes;
    }

    /** Keys of one ListObjectsV2 page. */
    static final int PAGE_KEYS = 1000;

    /** Fewest keys of one folder per concurrent size listing. */
    static final int SIZE_RUN_KEYS = 64;

    /**
     * What one listing of a run of a folder's keys found.
     *
     * @param sizes sizes of the run's keys it listed, -1 for those it passed over
     * @param through the last key it listed when its page bound ended it before the run's last key, else null (the
     *     run's whole range was listed)
     */
    private record Run(Map<String, Long> sizes, String through) {
    }

    /** Runs the listings, several at once on the sizing pool (one on the caller's thread). */
    private List<Run> runAll(List<Callable<Run>> runs) throws StorageException {
        List<Run> out = new ArrayList<>(runs.size());
        if (runs.size() <= 1) {
            for (Callable<Run> r : runs) {
                out.add(callSizeRun(r));
            }
            return out;
        }
        List<Future<Run>> futures = new ArrayList<>();
        try {
            for (Callable<Run> r : runs) {
                futures.add(sizing().submit(() -> callSizeRun(r)));
            }
            for (Future<Run> f : futures) {
                out.add(f.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw requests.bounds().ended("size listing", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof StorageException se) {
                throw se; // STOPPED: the run's bounds ended a listing
            }
            throw new StorageException(StorageException.Kind.OTHER, "size listing: " + e.getCause(), e.getCause());
        } finally {
            futures.forEach(f -> f.cancel(true));
        }
        return out;
    }

    private Run callSizeRun(Callable<Run> run) throws StorageException {
        try {
            return run.call();
        } catch (StorageException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new StorageException(StorageException.Kind.OTHER, "size listing: " + e, e);
        }
    }

    /** The pool of concurrent size listings, made on first use. */
    private ExecutorService sizing() {
        synchronized (this) {
            if (sizing == null) {
                sizing = Executors.newFixedThreadPool(listConcurrency, r -> {
                    Thread t = new Thread(r, "ducklake-janitor-s3-sizes");
                    t.setDaemon(true);
                    return t;
                });
            }
            return sizing;
        }
    }

    private ExecutorService sizing;

    /**
     * Sizes of one run of a folder's keys (in byte order) from one listing of the key range they span, bounded by
     * {@code maxPages}; -1 for a key of the run that the listing passed over (it went on to a later key, or the folder
     * ended). The listing stops at the run's last key.
     *
     * @throws StorageException kind STOPPED when the run's bounds end the listing; other failures leave the sizes unknown
     */
    private Run sizeRun(String bucket, String prefix, List<Map.Entry<String, String>> run, long maxPages) throws StorageException {
        Map<String, Long> sizes = new HashMap<>();
        Map<String, String> keys = new HashMap<>();
        run.forEach(k -> keys.put(k.getKey(), k.getValue()));
        String first = run.get(0).getKey();
        String last = run.get(run.size() - 1).getKey();
        String through = null;
        try (S3Listings.Pages pages = listings.new Pages(bucket, prefix, first.substring(0, first.length() - 1), maxPages)) {
            boolean covered = false;
            Set<String> seen = new HashSet<>();
            while (pages.hasNext()) {
                StoredObject o = pages.next();
                String key = o.address().substring(("s3://" + bucket + "/").length());
                int past = StorageLocation.compareCodePoints(key, last);
                if (past > 0) {
                    covered = true;
                    break;
                }
                through = key;
                String a = keys.get(key);
                if (a != null) {
                    seen.add(key);
                    if (o.sizeBytes() >= 0) {
                        sizes.put(a, o.sizeBytes());
                    }
                }
                if (past == 0) {
                    covered = true; // the run's last key: no page past it is needed
                    break;
                }
            }
            covered |= !pages.cut(); // the folder ended
            // the listing went past these keys in order: one of them that it did not show is not there
            for (Map.Entry<String, String> k : run) {
                if (!covered && (through == null || StorageLocation.compareCodePoints(k.getKey(), through) > 0)) {
                    break;
                }
                if (!seen.contains(k.getKey())) {
                    sizes.put(k.getValue(), -1L);
                }
            }
            return new Run(sizes, covered ? null : through == null ? first.substring(0, first.length() - 1) : through);
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof StorageException se && se.kind() == StorageException.Kind.STOPPED) {
                throw se;
            }
        } catch (StorageException e) {
            if (e.kind() == StorageException.Kind.STOPPED) {
                throw e;
            }
        }
        return new Run(sizes, null); // the listing failed: what it found stands, the rest is unknown (stat-ed)
    }

    /** How many times the pages a folder's keys need a size listing may read at least before it gives up. */
    static final int SIZE_LISTING_SLACK = 3;

    /**
     * The most pages a size listing of one folder reads for {@code keys} keys: a page and a HeadObject each cost one
     * round trip, and the keys left unknown are stat-ed {@link AbstractFileStore#OBJECT_STORE_DELETE_CONCURRENCY} at a time, so listing
     * pays while it reads fewer pages than {@code keys / 8} (DuckLake's file names are random: a batch's keys are spread
     * over its whole folder, whose pages outnumber the keys' own); never fewer than {@value #SIZE_LISTING_SLACK} times
     * the pages the keys fill.
     *
     * @param keys keys to size in the folder
     * @return pages
     */
    static long sizeListingPages(int keys) {
        return Math.max(((keys + 999L) / 1000) * SIZE_LISTING_SLACK, keys / AbstractFileStore.OBJECT_STORE_DELETE_CONCURRENCY);
    }

    synchronized void close() {
        if (sizing != null) {
            sizing.shutdownNow();
        }
    }
}
