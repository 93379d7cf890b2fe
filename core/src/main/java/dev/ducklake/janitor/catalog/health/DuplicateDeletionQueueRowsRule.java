package dev.ducklake.janitor.catalog.health;

import java.sql.SQLException;
import java.util.List;

/**
 * {@code duplicate_deletion_queue_rows}: rows of {@code ducklake_files_scheduled_for_deletion} repeating an earlier row's
 * (data_file_id, path). Unit: surplus rows (a pair queued three times counts 2).
 *
 * <p>Source: the queue has no key (shared catalog notes, section 1: only five primary keys exist), so nothing stops a
 * file from being queued twice, e.g. by two maintenance processes expiring the same snapshots or a retried commit
 * (reported by operators, issue 13; no public DuckLake issue names it). {@code ducklake_cleanup_old_files} then deletes the same
 * file twice and removes the rows by data_file_id. Fix: cleanup-old-files (or DuckLake's {@code ducklake_cleanup_old_files}),
 * which removes every row of a file once the file is deleted.
 */
final class DuplicateDeletionQueueRowsRule extends NamedRule {

    DuplicateDeletionQueueRowsRule() {
        super("duplicate_deletion_queue_rows",
                "ducklake-janitor cleanup-old-files (or DuckLake's ducklake_cleanup_old_files): deleting the file removes all its rows");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        if (!ctx.layout().has("ducklake_files_scheduled_for_deletion", "data_file_id", "path")) {
            return none();
        }
        String groups = "SELECT data_file_id, path, count(*) AS n FROM " + ctx.t("ducklake_files_scheduled_for_deletion")
                + " GROUP BY data_file_id, path HAVING count(*) > 1";
        long count = ctx.count("SELECT coalesce(sum(n - 1), 0) FROM (" + groups + ") g");
        List<String> examples = count == 0 ? List.of() : ctx.examples("SELECT data_file_id, path, n FROM (" + groups + ") g"
                + " ORDER BY data_file_id LIMIT ?", List.of("data_file_id=", "path=", "times="), ctx.maxExamples());
        return finding(count, examples);
    }
}
