package dev.ducklake.janitor.pg;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * How many tables one transaction may drop without filling the server's shared lock table.
 *
 * <p>The lock table holds {@code max_locks_per_transaction × (max_connections + max_prepared_transactions)}
 * entries; a {@code DROP TABLE} of an inlined-data table holds about {@link #ENTRIES_PER_DROP} of them until
 * commit (the heap, its TOAST heap and TOAST index, and two pg_type locks). A batch may use a quarter of the
 * capacity, clamped to [{@link #MIN_BATCH}, {@link #MAX_BATCH}]. Stock PostgreSQL (64 × 100) allows 320.
 *
 * @param maxLocksPerTransaction the server's max_locks_per_transaction
 * @param maxConnections the server's max_connections
 * @param maxPreparedTransactions the server's max_prepared_transactions
 */
public record LockBudget(int maxLocksPerTransaction, int maxConnections, int maxPreparedTransactions) {

    /** Lock-table entries one DROP TABLE holds until commit. */
    public static final int ENTRIES_PER_DROP = 5;
    /** The smallest batch the budget ever imposes, in tables. */
    public static final int MIN_BATCH = 10;
    /** The largest batch allowed at all, in tables. */
    public static final int MAX_BATCH = 2000;

    /**
     * Reads the three settings from the server.
     *
     * @param c an open connection
     * @return the budget
     * @throws SQLException on database errors
     */
    public static LockBudget read(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT current_setting('max_locks_per_transaction')::int,"
                     + " current_setting('max_connections')::int, current_setting('max_prepared_transactions')::int")) {
            rs.next();
            return new LockBudget(rs.getInt(1), rs.getInt(2), rs.getInt(3));
        }
    }

    /** Entries in the shared lock table. */
    public long capacity() {
        return (long) maxLocksPerTransaction * ((long) maxConnections + maxPreparedTransactions);
    }

    /** The largest batch this server allows, in tables: capacity / 4 / 5, clamped to [10, 2000]. */
    public int cap() {
        long cap = capacity() / 4 / ENTRIES_PER_DROP;
        return (int) Math.max(MIN_BATCH, Math.min(MAX_BATCH, cap));
    }

    /**
     * The batch size to use for a requested one.
     *
     * @param requested the requested batch size in tables (1 to 2000)
     * @return min(requested, cap())
     */
    public int effective(int requested) {
        return Math.min(requested, cap());
    }
}
