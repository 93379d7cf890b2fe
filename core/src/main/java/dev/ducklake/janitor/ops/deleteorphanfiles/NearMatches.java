package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.ops.files.KnownFiles;
import dev.ducklake.janitor.storage.StorageLocation;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The near-match brake (Iceberg's {@code DeleteOrphanFiles} with {@code prefixMismatchMode=ERROR}): an orphan candidate
 * whose path below the scheme and authority equals that of a file a consulted catalog names, but whose full address
 * differs ({@code s3://b/lake/t/f.parquet} listed, {@code r2://b/lake/t/f.parquet} or
 * {@code https://b.s3.amazonaws.com/lake/t/f.parquet} in the catalog). The two may be one object reached through two
 * spellings of its store (another scheme, endpoint or host name for the same bucket); the candidate may then be live,
 * and no rule of this tool can tell. Bucket case is not a near match: canonical form lower-cases the bucket, so such a
 * file is known and kept.
 *
 * <p>Memory is bounded: the candidates are read back from the spill file in listing order, which is also the order of
 * their paths below the authority (one store, one authority, a constant prefix), and merged with the known addresses
 * streamed from PostgreSQL sorted by that path ({@link KnownFiles#byPathBelowAuthority}). Only a few examples and a count
 * are held.
 */
final class NearMatches {

    /** Pairs named in the brake's message. */
    static final int EXAMPLES = 5;

    /**
     * What the merge found.
     *
     * @param total candidates with a near match
     * @param examples up to {@value #EXAMPLES} pairs {listed address, the catalog's spelling}
     */
    record Found(long total, List<String[]> examples) {
    }

    private NearMatches() {
    }

    /**
     * Merges the spilled candidates with the known set by path below the authority.
     *
     * @param known the known set of the consulted catalogs
     * @param root the swept data path
     * @param spill the candidates as {@link OrphanSweep} wrote them (address, size, mtime), in listing order
     * @return the near matches
     * @throws IOException when the spill file cannot be read
     * @throws SQLException on database errors
     */
    static Found find(KnownFiles known, StorageLocation root, Path spill) throws IOException, SQLException {
        String rootBelow = StorageLocation.pathsBelowAuthority(root.asPrefix().canonical()).get(0);
        long total = 0;
        List<String[]> examples = new ArrayList<>();
        try (KnownFiles.Cursor<KnownFiles.Spelling> k = known.byPathBelowAuthority(rootBelow);
             DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(spill)))) {
            KnownFiles.Spelling kc = k.hasNext() ? k.next() : null;
            String prev = null;
            String prevMatch = null;
            while (true) {
                String address;
                try {
                    address = in.readUTF();
                    in.readLong();
                    in.readLong();
                } catch (EOFException e) {
                    break;
                }
                String canon = StorageLocation.parse(address).canonical();
                String below = StorageLocation.pathsBelowAuthority(canon).get(0);
                if (prev != null && below.equals(prev)) {
                    if (prevMatch != null) {
                        total++;
                    }
                    continue;
                }
                if (prev != null && StorageLocation.compareCodePoints(below, prev) < 0) {
                    throw new IllegalStateException("orphan candidates out of order: " + below + " after " + prev);
                }
                prev = below;
                prevMatch = null;
                while (kc != null && StorageLocation.compareCodePoints(kc.belowAuthority(), below) < 0) {
                    kc = k.hasNext() ? k.next() : null;
                }
                while (kc != null && kc.belowAuthority().equals(below)) {
                    if (!kc.canonical().equals(canon) && prevMatch == null) {
                        prevMatch = kc.canonical();
                    }
                    kc = k.hasNext() ? k.next() : null;
                }
                if (prevMatch != null) {
                    total++;
                    if (examples.size() < EXAMPLES) {
                        examples.add(new String[] {address, prevMatch});
                    }
                }
            }
        }
        return new Found(total, List.copyOf(examples));
    }
}
