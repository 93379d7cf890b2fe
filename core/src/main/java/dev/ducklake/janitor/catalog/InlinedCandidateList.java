package dev.ducklake.janitor.catalog;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.RandomAccess;

/**
 * The orphan registry rows of a run, held as three primitive arrays (table_id, schema_version, ctid packed
 * into one long): 24 bytes per candidate instead of a record plus a ctid string (about 110 bytes), so that
 * 230,000 candidates take about 5.5 MiB. {@link #get} builds the {@link InlinedCandidate} of one row when a batch
 * reads it; the list is read-only.
 *
 * <p>A ctid {@code (block,offset)} packs as {@code block << 16 | offset} (a block number is an unsigned 32-bit
 * value, an offset at most 16 bits).
 */
public final class InlinedCandidateList extends AbstractList<InlinedCandidate> implements RandomAccess {

    private long[] ids = new long[16];
    private long[] versions = new long[16];
    private long[] ctids = new long[16];
    /** Rows whose table existed (a plain table of that name in the schema) when the survey read them. */
    private final BitSet present = new BitSet();
    private int size;

    /**
     * Appends a registered candidate; {@code ctid} is PostgreSQL's text form {@code (block,offset)};
     * {@code tablePresent} whether its table existed when the survey read the row.
     */
    public void addRegistered(long tableId, long schemaVersion, String ctid, boolean tablePresent) {
        present.set(size, tablePresent);
        if (size == ids.length) {
            int n = size * 2;
            ids = Arrays.copyOf(ids, n);
            versions = Arrays.copyOf(versions, n);
            ctids = Arrays.copyOf(ctids, n);
        }
        ids[size] = tableId;
        versions[size] = schemaVersion;
        ctids[size] = packCtid(ctid);
        size++;
    }

    /** Drops the spare capacity once the list is complete. */
    public InlinedCandidateList trim() {
        ids = Arrays.copyOf(ids, size);
        versions = Arrays.copyOf(versions, size);
        ctids = Arrays.copyOf(ctids, size);
        return this;
    }

    /**
     * Whether the table of a registered candidate of this table_id and schema_version existed at the survey: a
     * binary search, as the list is in the server's {@code ORDER BY table_id, schema_version} (bigint order, the
     * order of {@link Long#compare}).
     *
     * @return true when a row of that key is in the list and its table existed when the survey read it
     */
    public boolean presentAtSurvey(long tableId, long schemaVersion) {
        int lo = 0;
        int hi = size - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int cmp = ids[mid] != tableId ? Long.compare(ids[mid], tableId) : Long.compare(versions[mid], schemaVersion);
            if (cmp < 0) {
                lo = mid + 1;
            } else if (cmp > 0) {
                hi = mid - 1;
            } else {
                return present.get(mid);
            }
        }
        return false;
    }

    /**
     * The number of distinct tables (keys) among the candidates whose table existed at the survey; rows of the
     * same key are adjacent, as the list is sorted.
     */
    public long tablesPresentAtSurvey() {
        long n = 0;
        for (int i = present.nextSetBit(0); i >= 0; i = present.nextSetBit(i + 1)) {
            if (i == 0 || ids[i - 1] != ids[i] || versions[i - 1] != versions[i] || !present.get(i - 1)) {
                n++;
            }
        }
        return n;
    }

    @Override
    public InlinedCandidate get(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException(i);
        }
        return new InlinedCandidate(InlinedCandidate.Origin.REGISTERED, ids[i], versions[i], unpackCtid(ctids[i]));
    }

    @Override
    public int size() {
        return size;
    }

    /** {@code (block,offset)} → {@code block << 16 | offset}. */
    static long packCtid(String ctid) {
        int comma = ctid.indexOf(',');
        if (ctid.length() < 5 || ctid.charAt(0) != '(' || comma < 0 || ctid.charAt(ctid.length() - 1) != ')') {
            throw new IllegalArgumentException("not a ctid: " + ctid);
        }
        long block = Long.parseLong(ctid.substring(1, comma));
        long offset = Long.parseLong(ctid.substring(comma + 1, ctid.length() - 1));
        if (block < 0 || block > 0xFFFF_FFFFL || offset < 0 || offset > 0xFFFF) {
            throw new IllegalArgumentException("not a ctid: " + ctid);
        }
        return block << 16 | offset;
    }

    /** The inverse of {@link #packCtid}. */
    static String unpackCtid(long packed) {
        return "(" + (packed >>> 16) + "," + (packed & 0xFFFF) + ")";
    }

    /** A read-only view of two lists one after the other (registered, then unregistered candidates). */
    public static List<InlinedCandidate> concat(List<InlinedCandidate> first, List<InlinedCandidate> second) {
        if (second.isEmpty()) {
            return first;
        }
        return new Concat(first, second);
    }

    private static final class Concat extends AbstractList<InlinedCandidate> implements RandomAccess {
        private final List<InlinedCandidate> first;
        private final List<InlinedCandidate> second;

        Concat(List<InlinedCandidate> first, List<InlinedCandidate> second) {
            this.first = first;
            this.second = second;
        }

        @Override
        public InlinedCandidate get(int i) {
            return i < first.size() ? first.get(i) : second.get(i - first.size());
        }

        @Override
        public int size() {
            return first.size() + second.size();
        }
    }
}
