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
     * escape of an unreserved character is not; DuckLake never writes one. Nor is a name holding U+FFFD, the character
     * the JVM puts for bytes that are not UTF-8: such a name is not the file's (a delete through it finds nothing and
     * would be reported as done), and no catalog row can name it.
     *
     * @return true when address and canonical form agree
     */
    public boolean canonicalSpelling() {
        String expected = location.scheme().equals("file") ? location.path()
                : location.scheme() + "://" + location.bucket() + "/" + location.path();
        return expected.equals(address) && address.indexOf('\uFFFD') < 0;
    }

    /**
     * {@link #canonicalSpelling()} below a listed prefix that may itself be spelled otherwise than its canonical form
     * ({@link StorageLocation#spelled}: {@code s3://bkt/p%7Eq/}, whose canonical form is {@code s3://bkt/p~q/}): the
     * address starts with the prefix as spelled and the rest is spelled exactly as the canonical form's rest, so that
     * the listing's byte order below the prefix is the canonical strings' order. An address under another spelling of
     * the same canonical prefix (an inventory's entry under {@code p~q/}, another lake's) is not.
     *
     * @param spelledPrefix the listed prefix as spelled ({@link StorageLocation#spelling()})
     * @param canonicalPrefix its canonical form ({@link StorageLocation#canonical()}, ending in {@code /})
     * @return true when the object lies under the spelled prefix and the rest of its address is canonical
     */
    public boolean canonicalBelow(String spelledPrefix, String canonicalPrefix) {
        if (!address.startsWith(spelledPrefix) || address.indexOf('\uFFFD') >= 0) {
            return false;
        }
        String canon = location.canonical();
        int rest = address.length() - spelledPrefix.length();
        return canon.length() == canonicalPrefix.length() + rest && canon.startsWith(canonicalPrefix)
                && canon.regionMatches(canonicalPrefix.length(), address, spelledPrefix.length(), rest);
    }
}
