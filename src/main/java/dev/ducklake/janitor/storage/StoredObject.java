package dev.ducklake.janitor.storage;

import java.time.Instant;

/**
 * One object (file) a store listed or stat-ed.
 *
 * @param location where it is, canonical (for comparisons)
 * @param address the exact spelling the store knows it by (for deleting it): a local path or {@code s3://bucket/key}
 *     with the key byte for byte as listed
 * @param sizeBytes its size in bytes, or -1 when the store did not say
 * @param lastModified when it was last written, or null when the store did not say
 */
public record StoredObject(StorageLocation location, String address, long sizeBytes, Instant lastModified) {

    /**
     * Whether the address is spelled exactly as the canonical form (so that a listing's byte order is the order of the
     * canonical strings a merge compares). A key with a doubled slash, a {@code .} segment, a backslash or a {@code %XX}
     * escape of an unreserved character is not; DuckLake never writes one.
     *
     * @return true when address and canonical form agree
     */
    public boolean canonicalSpelling() {
        String expected = location.scheme().equals("file") ? location.path()
                : location.scheme() + "://" + location.bucket() + "/" + location.path();
        return expected.equals(address);
    }
}
