package dev.ducklake.janitor.catalog.health;

import java.sql.SQLException;
import java.util.List;

/**
 * {@code snapshot_changes_without_snapshot}: {@code ducklake_snapshot_changes} rows whose snapshot_id has no
 * {@code ducklake_snapshot} row. Unit: rows.
 *
 * <p>Source: DuckLake writes both rows in one commit and {@code ducklake_expire_snapshots} deletes both together
 * ({@code DeleteSnapshots}, shared catalog notes, section 3); a hand-written expiry that deleted only
 * {@code ducklake_snapshot} rows (the leak this project was started for) leaves the change rows behind. DuckLake never
 * reads them again; they only take space. Fix: none automatic (they are harmless); expire-snapshots does not create them.
 */
final class SnapshotChangesWithoutSnapshotRule extends NamedRule {

    SnapshotChangesWithoutSnapshotRule() {
        super("snapshot_changes_without_snapshot",
                "none automatic: harmless leftovers of an expiry done outside DuckLake; they may be deleted by hand");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        if (!ctx.layout().has("ducklake_snapshot_changes", "snapshot_id")) {
            return none();
        }
        String from = " FROM " + ctx.t("ducklake_snapshot_changes") + " c WHERE NOT EXISTS (SELECT 1 FROM "
                + ctx.t("ducklake_snapshot") + " s WHERE s.snapshot_id = c.snapshot_id)";
        long count = ctx.count("SELECT count(*)" + from);
        List<String> examples = count == 0 ? List.of() : ctx.examples("SELECT c.snapshot_id, c.changes_made" + from
                + " ORDER BY c.snapshot_id LIMIT ?", List.of("snapshot_id=", "changes_made="), ctx.maxExamples());
        return finding(count, examples);
    }
}
