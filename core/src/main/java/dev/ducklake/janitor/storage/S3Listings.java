package dev.ducklake.janitor.storage;

import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Object;

import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The listings of {@link S3FileStore}: ListObjectsV2 pages of up to 1,000 keys with the continuation token (S3 returns
 * keys in UTF-8 byte order), one folder level with the delimiter '/', and the whole prefix with its schema and table
 * folders listed {@code listConcurrency} at a time ({@link FolderParallelListing}). Keys ending in {@code /} (folder
 * markers) are not objects and are skipped.
 */
final class S3Listings {

    private final S3Requests requests;
    private final int listConcurrency;

    S3Listings(S3Requests requests, int listConcurrency) {
        this.requests = requests;
        this.listConcurrency = listConcurrency;
    }

    /**
     * Lists a prefix; with a list concurrency above 1 its schema and table folders are listed concurrently by a
     * {@link FolderParallelListing}, in the same order as one flat listing.
     *
     * @param p a prefix location
     * @return the listing
     * @throws StorageException when the listing cannot start
     */
    FileStore.Listing list(StorageLocation p) throws StorageException {
        if (listConcurrency <= 1) {
            return new Pages(p.bucket(), p.path());
        }
        String bucket = p.bucket();
        return new FolderParallelListing(new FolderParallelListing.Source() {
            @Override
            public Iterator<FolderParallelListing.Entry> level(String folder) throws StorageException {
                return new Level(bucket, folder);
            }

            @Override
            public FileStore.Listing range(String within, String startAfter, String endBefore) throws StorageException {
                return new Pages(bucket, within, startAfter, 0, endBefore);
            }
        }, p.path(), listConcurrency);
    }

    /** The object a listed key stands for, or null for a folder marker (a key ending in '/') or a key with a '..' segment. */
    static StoredObject stored(String bucket, S3Object o) {
        if (o.key().endsWith("/")) {
            return null;
        }
        String address = "s3://" + bucket + "/" + o.key();
        try {
            return new StoredObject(StorageLocation.parse(address), address, o.size() == null ? -1 : o.size(), o.lastModified());
        } catch (IllegalArgumentException e) {
            return null; // a key with a '..' segment has no unambiguous location: never a candidate
        }
    }

    /** A listing page after page: its entries one at a time, the next page fetched when one is used up. */
    private abstract static class Paged<E, T> extends LookAhead<T> {
        private Iterator<E> page = List.<E>of().iterator();
        /** Whether the last page was fetched. */
        boolean done;

        /** Fetches the next page into {@link #page(Iterator)} and sets {@link #done} after the last. */
        abstract void nextPage() throws StorageException;

        /** @return the element an entry of a page stands for, or null to skip it */
        abstract T element(E entry);

        final void page(Iterator<E> entries) {
            page = entries;
        }

        @Override
        protected final T fetch() {
            while (true) {
                if (page.hasNext()) {
                    T t = element(page.next());
                    if (t != null) {
                        return t;
                    }
                } else if (done) {
                    return null;
                } else {
                    try {
                        nextPage();
                    } catch (StorageException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            }
        }
    }

    /** One folder level (ListObjectsV2 with the delimiter '/'): its objects and sub-folders merged in byte order, page by page. */
    private final class Level extends Paged<FolderParallelListing.Entry, FolderParallelListing.Entry> {
        private final String bucket;
        private final String folder;
        private String token;
        private String last;

        Level(String bucket, String folder) throws StorageException {
            this.bucket = bucket;
            this.folder = folder;
            nextPage();
        }

        @Override
        void nextPage() throws StorageException {
            ListObjectsV2Response resp = requests.listPage(bucket, folder, "/", token, null);
            List<FolderParallelListing.Entry> entries = new ArrayList<>(resp.contents().size() + resp.commonPrefixes().size());
            for (S3Object o : resp.contents()) {
                StoredObject so = stored(bucket, o);
                if (so != null) {
                    entries.add(new FolderParallelListing.Entry(o.key(), so));
                } else if (o.key().endsWith("/") && o.key().length() > folder.length()) {
                    // a folder marker some stores (S3Proxy's jclouds back ends) return as an object in place of the
                    // common prefix, hiding the folder's keys: it stands for the folder
                    entries.add(new FolderParallelListing.Entry(o.key(), null));
                }
            }
            for (software.amazon.awssdk.services.s3.model.CommonPrefix cp : resp.commonPrefixes()) {
                entries.add(new FolderParallelListing.Entry(cp.prefix(), null));
            }
            // a page holds the next keys and folders together in byte order; each list is sorted, merge them
            entries.sort((a, b) -> StorageLocation.compareCodePoints(a.key(), b.key()));
            page(entries.iterator());
            token = resp.nextContinuationToken();
            done = !Boolean.TRUE.equals(resp.isTruncated()) || token == null;
        }

        @Override
        FolderParallelListing.Entry element(FolderParallelListing.Entry e) {
            // strictly ascending: a folder a store gave on two pages (marker, then prefix) is one entry
            if (last != null && StorageLocation.compareCodePoints(e.key(), last) <= 0) {
                return null;
            }
            last = e.key();
            return e;
        }
    }

    final class Pages extends Paged<S3Object, StoredObject> implements FileStore.Listing {
        private final String bucket;
        private final String prefix;
        private String token;
        /** Keys after this one only (ListObjectsV2 StartAfter), or null. */
        private final String startAfter;
        /** The most pages fetched, then the listing ends; 0 for no bound. */
        private final long maxPages;
        private long pages;
        /** Whether the page bound ended the listing before the store did. */
        private boolean cut;
        /** The first key past the listing (it ends before it), or null for the end of the prefix. */
        private final String endBefore;

        /** @return whether the page bound ended the listing before the store's last page */
        boolean cut() {
            return cut;
        }

        Pages(String bucket, String prefix) throws StorageException {
            this(bucket, prefix, null, 0, null);
        }

        Pages(String bucket, String prefix, String startAfter, long maxPages) throws StorageException {
            this(bucket, prefix, startAfter, maxPages, null);
        }

        Pages(String bucket, String prefix, String startAfter, long maxPages, String endBefore) throws StorageException {
            this.bucket = bucket;
            this.endBefore = endBefore;
            this.prefix = prefix;
            this.startAfter = startAfter == null || startAfter.isEmpty() ? null : startAfter;
            this.maxPages = maxPages;
            nextPage();
        }

        @Override
        void nextPage() throws StorageException {
            pages++;
            ListObjectsV2Response resp = requests.listPage(bucket, prefix, null, token, startAfter);
            page(resp.contents().iterator());
            token = resp.nextContinuationToken();
            done = !Boolean.TRUE.equals(resp.isTruncated()) || token == null;
            if (!done && maxPages > 0 && pages >= maxPages) {
                done = true;
                cut = true;
            }
        }

        @Override
        StoredObject element(S3Object o) {
            if (endBefore != null && StorageLocation.compareCodePoints(o.key(), endBefore) >= 0) {
                close();
                return null;
            }
            return stored(bucket, o);
        }

        @Override
        public void close() {
            done = true;
            page(List.<S3Object>of().iterator());
        }
    }

}
