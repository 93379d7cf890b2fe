package dev.ducklake.janitor.ops.purgestats;

import dev.ducklake.janitor.ops.runtime.BatchWork;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The one {@link BatchWork} of a purge-orphan-stats run: its units are the orphaned ids of every group, one group after
 * the other ({@link dev.ducklake.janitor.ops.runtime.BatchSource#concat}, so a batch holds the ids of one group), and each batch
 * is the work of its group ({@link StatsPurgeBatch#attempt}). Messages name the group of the batch at hand.
 */
final class StatsPurgeWork implements BatchWork<StatsPurgeWork.OrphanId, StatsPurgeBatch.Done> {

    /**
     * One orphaned id of one group.
     *
     * @param group the stats tables it is deleted from
     * @param id its table_id or data_file_id
     */
    record OrphanId(StatsPurgeBatch group, long id) { }

    private StatsPurgeBatch current;

    /** @param first the first group (named by messages before any batch ran) */
    StatsPurgeWork(StatsPurgeBatch first) {
        this.current = first;
    }

    @Override
    public StatsPurgeBatch.Done attempt(Connection c, List<OrphanId> slice) throws SQLException {
        current = slice.get(0).group();
        return current.attempt(c, slice.stream().map(OrphanId::id).toList());
    }

    @Override
    public void committed(StatsPurgeBatch.Done outcome) {
        current.committed(outcome);
    }

    @Override
    public String privilegeNeeded() {
        return current.privilegeNeeded();
    }

    @Override
    public String units() {
        return current.units();
    }
}
