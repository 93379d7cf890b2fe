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
     * Sizes from a listing instead of a HeadObject per key: the keys are grouped by bucket and folder, each folder's
     * keys (in byte order) are cut into up to {@code LIST_CONCURRENCY} runs of at least {@value #SIZE_RUN_KEYS} keys,
     * and the runs are listed at once, each from just before its smallest key to its largest, stopping after
     * {@link #sizeListingPages} pages (beyond that a HeadObject per key, {@value AbstractFileStore#OBJECT_STORE_DELETE_CONCURRENCY} at a
     * time, is cheaper; the keys left unknown are stat-ed by the caller). A key of a range listed to its end that the listing
     * did not show is missing (-1). A listing failure other than a stop leaves the sizes unknown.
     */
    Map<String, Long> listedSizes(List<String> addresses) throws StorageException {
        // keys in S3's (UTF-8 byte) order, so that a run of them is one key range
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
        // each folder's keys in up to LIST_CONCURRENCY runs of at least SIZE_RUN_KEYS keys, listed at once
        List<Callable<Map<String, Long>>> runs = new ArrayList<>();
        for (Map.Entry<String, java.util.TreeMap<String, String>> f : byFolder.entrySet()) {
            String bucket = f.getKey().substring(0, f.getKey().indexOf('/'));
            String prefix = f.getKey().substring(bucket.length() + 1);
            List<Map.Entry<String, String>> keys = new ArrayList<>(f.getValue().entrySet());
            int parts = Math.max(1, Math.min(listConcurrency, keys.size() / SIZE_RUN_KEYS));
            for (int i = 0; i < parts; i++) {
                List<Map.Entry<String, String>> run = keys.subList(i * keys.size() / parts, (i + 1) * keys.size() / parts);
                runs.add(() -> sizeRun(bucket, prefix, run));
            }
        }
        Map<String, Long> sizes = new HashMap<>();
        if (runs.size() == 1) {
            sizes.putAll(callSizeRun(runs.get(0)));
            return sizes;
        }
        List<Future<Map<String, Long>>> futures = new ArrayList<>();
        try {
            for (Callable<Map<String, Long>> r : runs) {
                futures.add(sizing().submit(() -> callSizeRun(r)));
            }
            for (Future<Map<String, Long>> f : futures) {
                sizes.putAll(f.get());
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
        return sizes;
    }

    /** Fewest keys of one folder per concurrent size listing. */
    static final int SIZE_RUN_KEYS = 64;

    private Map<String, Long> callSizeRun(Callable<Map<String, Long>> run) throws StorageException {
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
     * {@link #sizeListingPages}; -1 for a key of a range listed to its end that the listing did not show.
     *
     * @throws StorageException kind STOPPED when the run's bounds end the listing; other failures leave the sizes unknown
     */
    private Map<String, Long> sizeRun(String bucket, String prefix, List<Map.Entry<String, String>> run) throws StorageException {
        Map<String, Long> sizes = new HashMap<>();
        Map<String, String> keys = new HashMap<>();
        run.forEach(k -> keys.put(k.getKey(), k.getValue()));
        String first = run.get(0).getKey();
        String last = run.get(run.size() - 1).getKey();
        try (S3Listings.Pages pages = listings.new Pages(bucket, prefix, first.substring(0, first.length() - 1), sizeListingPages(run.size()))) {
            boolean covered = false;
            Set<String> seen = new HashSet<>();
            while (pages.hasNext()) {
                StoredObject o = pages.next();
                String key = o.address().substring(("s3://" + bucket + "/").length());
                if (StorageLocation.compareCodePoints(key, last) > 0) {
                    covered = true;
                    break;
                }
                String a = keys.get(key);
                if (a != null) {
                    seen.add(key);
                    if (o.sizeBytes() >= 0) {
                        sizes.put(a, o.sizeBytes());
                    }
                }
            }
            if (covered || !pages.cut()) {
                // the listing went past the range: a key of it that was not listed is not there
                for (Map.Entry<String, String> k : keys.entrySet()) {
                    if (!seen.contains(k.getKey())) {
                        sizes.put(k.getValue(), -1L);
                    }
                }
            }
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof StorageException se && se.kind() == StorageException.Kind.STOPPED) {
                throw se;
            }
        } catch (StorageException e) {
            if (e.kind() == StorageException.Kind.STOPPED) {
                throw e;
            }
        }
        return sizes;
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
