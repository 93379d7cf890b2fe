package dev.ducklake.janitor.catalog.health;

import dev.ducklake.janitor.catalog.SnapshotConsistency;

import java.sql.SQLException;
import java.util.List;

/**
 * {@code rows_beyond_last_snapshot}: catalog rows that name a snapshot beyond {@code max(snapshot_id)}, counted by
 * {@link SnapshotConsistency#check} (the snapshot-consistency check every command runs before working, and the source of
 * the {@code ducklake_catalog_rows_beyond_last_snapshot} gauge; this class only reports its figures). Unit: rows.
 *
 * <p>Source: DuckLake writes a snapshot and every row naming it in one transaction and never expires the newest snapshot,
 * so such rows mean the newest {@code ducklake_snapshot} rows were lost (a hand-written expiry with {@code >} for
 * {@code <}, a partial restore); live tables can then look unreachable. Fix: none automatic: restore the missing
 * {@code ducklake_snapshot} rows; every maintenance command refuses such a catalog (exit 6) until then.
 */
final class RowsBeyondLastSnapshotRule extends NamedRule {

    RowsBeyondLastSnapshotRule() {
        super("rows_beyond_last_snapshot",
                "none automatic: restore the missing newest ducklake_snapshot rows (from a backup); every maintenance command "
                        + "refuses this catalog (exit 6) until then");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        SnapshotConsistency.Report r = SnapshotConsistency.check(ctx.conn(), ctx.schema(), SnapshotConsistency.SAMPLE_IDS);
        List<String> examples = r.damaged().stream().limit(ctx.maxExamples()).map(d -> {
            StringBuilder b = new StringBuilder(d.table()).append(": ").append(d.rows()).append(" rows");
            if (!d.firstIds().isEmpty()) {
                b.append(" (").append(d.idColumn()).append(' ').append(d.firstIds()).append(')');
            }
            return b.append(", newest snapshot ").append(r.newestSnapshotId()).toString();
        }).toList();
        return finding(r.totalRows(), examples);
    }
}
