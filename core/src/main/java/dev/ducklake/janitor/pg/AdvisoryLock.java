package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The session-level advisory lock that every maintenance operation of this tool holds while it changes a
 * catalog. Never blocks: {@code pg_try_advisory_lock}.
 *
 * <p>Two keys are taken, both computed in Postgres with {@code hashtext}:
 * <ul>
 *   <li>{@code hashtext(<lock name>)} in <b>shared</b> mode, so that anything holding the plain lock name
 *       exclusively (another tool using the same name, an operator) keeps every janitor out, while janitors
 *       working on different metadata schemas do not exclude each other;</li>
 *   <li>{@code hashtext(<lock name> || ':' || <schema>)} in exclusive mode: one run per catalog schema.</li>
 * </ul>
 * The lock lives on the session: after a reconnect it must be taken again with {@link #reacquire}. A session lock
 * needs one server session for the whole run: on a transaction-pooled connection ({@link Pooling}) it is refused
 * with {@link Reason#POOLER_MODE}, and so is a server session that already holds the lock before this run took it
 * (another client's session handed over by a pooler). Each transaction that changes the catalog, and each delete call
 * of the storage commands, first proves with {@link #verify} that its server session is the holder.
 */
public final class AdvisoryLock {

    private final String lockName;
    private final String schema;

    private AdvisoryLock(String lockName, String schema) {
        this.lockName = lockName;
        this.schema = schema;
    }

    /**
     * Takes the lock on a session.
     *
     * @param c the session that will run the mutations (autocommit on)
     * @param lockName the lock name (--lock-name)
     * @param schema the metadata schema
     * @return the held lock
     * @throws JanitorException {@link Reason#LOCK_HELD} when another session holds it, naming the lock and,
     *     where visible, the holder's pid, the age of its session and how long it has been in its state (idle, active);
     *     {@link Reason#POOLER_MODE} on a transaction-pooled connection or a server session already holding the lock
     * @throws SQLException on database errors
     */
    public static AdvisoryLock acquire(Connection c, String lockName, String schema) throws JanitorException, SQLException {
        AdvisoryLock lock = new AdvisoryLock(lockName, schema);
        lock.reacquire(c);
        return lock;
    }

    /**
     * The lock of a lock name and schema as a handle for {@link #verify} only, for work that runs under a lock taken
     * elsewhere in the run ({@link #acquire} on the same connection); takes nothing.
     *
     * @param lockName the lock name (--lock-name)
     * @param schema the metadata schema
     * @return the handle
     */
    public static AdvisoryLock named(String lockName, String schema) {
        return new AdvisoryLock(lockName, schema);
    }

    /**
     * Takes the lock again on a new session (after a reconnect).
     *
     * @param c the new session
     * @throws JanitorException {@link Reason#LOCK_HELD} when another session took it meanwhile
     * @throws SQLException on database errors
     */
    public void reacquire(Connection c) throws JanitorException, SQLException {
        if (Pooling.transactionPooled(c)) {
            throw Pooling.refusal(null, "an execute run", "a session advisory lock held for the whole run");
        }
        // CASE fixes the order: a server session that already holds either key before this run took it serves other
        // clients too (a transaction-mode pooler the probe missed); pg_try_advisory_lock would "succeed" again on it
        try (PreparedStatement ps = c.prepareStatement("SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_locks"
                + " WHERE locktype = 'advisory' AND objsubid = 1 AND pid = pg_catalog.pg_backend_pid()"
                + " AND ((classid::bigint << 32) | objid::bigint) IN (hashtext(?)::bigint, hashtext(?)::bigint))"
                + " THEN NULL ELSE pg_try_advisory_lock_shared(hashtext(?)::bigint) END")) {
            ps.setString(1, lockName);
            ps.setString(2, schemaKey());
            ps.setString(3, lockName);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                boolean got = rs.getBoolean(1);
                if (rs.wasNull()) {
                    throw new JanitorException(Reason.POOLER_MODE, "The server session of this connection already holds the"
                            + " advisory lock " + describe() + " that this run was about to take: the connection goes through a"
                            + " pooler that hands server sessions between clients (transaction or statement pooling, or session"
                            + " pooling without server_reset_query), so the lock would protect nothing. Nothing was changed."
                            + " Point --catalog at the PostgreSQL server itself or at a session-mode pool (pool_mode = session).");
                }
                if (!got) {
                    throw held(c, lockName);
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_try_advisory_lock(hashtext(?)::bigint)")) {
            ps.setString(1, schemaKey());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    release(c, false);
                    throw held(c, schemaKey());
                }
            }
        }
    }

    /**
     * Proves that the server session running the caller's current transaction is the one holding this lock (both
     * keys), as a read of {@code pg_locks} for {@code pg_backend_pid()}. Called inside every transaction that changes
     * the catalog, and before every delete call of the storage commands, ahead of its first change: behind a pooler
     * that hands server sessions between clients (transaction pooling the {@link Pooling} probe missed) the lock stays
     * on the server session it was taken on while the work runs on another, and would protect nothing.
     *
     * @param c the run's connection, inside the transaction about to do the work (or right before a delete call)
     * @throws JanitorException {@link Reason#POOLER_MODE} when this server session does not hold both keys, naming this
     *     session's pid and the holder's; nothing of the transaction has been changed by this call
     * @throws SQLException on database errors
     */
    public void verify(Connection c) throws JanitorException, SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.pg_backend_pid(),"
                + " EXISTS (SELECT 1 FROM pg_catalog.pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted"
                + " AND pid = pg_catalog.pg_backend_pid() AND mode = 'ShareLock'"
                + " AND ((classid::bigint << 32) | objid::bigint) = hashtext(?)::bigint),"
                + " (SELECT string_agg(DISTINCT pid::text, ', ') FROM pg_catalog.pg_locks WHERE locktype = 'advisory'"
                + " AND objsubid = 1 AND granted AND mode = 'ExclusiveLock'"
                + " AND ((classid::bigint << 32) | objid::bigint) = hashtext(?)::bigint)")) {
            ps.setString(1, lockName);
            ps.setString(2, schemaKey());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long self = rs.getLong(1);
                boolean shared = rs.getBoolean(2);
                String holders = rs.getString(3);
                if (shared && String.valueOf(self).equals(holders)) {
                    return;
                }
                throw new JanitorException(Reason.POOLER_MODE, "The server session running this run's work (pid " + self
                        + ") does not hold the advisory lock " + describe() + " this run took at start ("
                        + (holders == null ? "no session holds it now" : "held by pid " + holders) + "): the connection goes"
                        + " through a pooler that hands server sessions between clients (transaction or statement pooling),"
                        + " so the lock would protect nothing. Stopped before this transaction changed anything; work"
                        + " committed before is kept. Point --catalog at the PostgreSQL server itself or at a session-mode"
                        + " pool (pool_mode = session).");
            }
        }
    }

    /**
     * Releases the lock (best effort; a closed session has released it already).
     *
     * @param c the session holding it
     */
    public void release(Connection c) {
        release(c, true);
    }

    private void release(Connection c, boolean both) {
        try {
            if (c.isClosed()) {
                return;
            }
            if (both) {
                try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_unlock(hashtext(?)::bigint)")) {
                    ps.setString(1, schemaKey());
                    ps.execute();
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_unlock_shared(hashtext(?)::bigint)")) {
                ps.setString(1, lockName);
                ps.execute();
            }
        } catch (SQLException ignored) {
            // the session ends soon after; its locks go with it
        }
    }

    private String schemaKey() {
        return lockName + ":" + schema;
    }

    /** The lock's name as shown to operators. */
    public String describe() {
        return "'" + lockName + "' (schema " + schema + ")";
    }

    private static JanitorException held(Connection c, String key) {
        StringBuilder holder = new StringBuilder();
        // pg_stat_activity shows other roles' backend_start and state only to superusers and pg_read_all_stats
        try (PreparedStatement ps = c.prepareStatement("SELECT l.pid, floor(extract(epoch FROM now() - a.backend_start))::bigint,"
                + " floor(extract(epoch FROM now() - a.state_change))::bigint, a.state"
                + " FROM (SELECT DISTINCT pid FROM pg_catalog.pg_locks WHERE locktype = 'advisory' AND objsubid = 1"
                + " AND pid <> pg_backend_pid() AND ((classid::bigint << 32) | objid::bigint) = hashtext(?)::bigint) l"
                + " LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid ORDER BY l.pid")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    holder.append(holder.length() == 0 ? " by pid " : ", pid ").append(rs.getLong(1));
                    Long age = rs.getObject(2, Long.class);
                    Long stateAge = rs.getObject(3, Long.class);
                    String state = rs.getString(4);
                    if (age != null) {
                        holder.append(" (a session ").append(age(age)).append(" old");
                        if (state != null && stateAge != null) {
                            holder.append(", ").append(state).append(" for ").append(age(stateAge));
                        }
                        holder.append(')');
                    }
                }
            }
        } catch (SQLException ignored) {
            // the holder is only a courtesy in the message
        }
        return new JanitorException(Reason.LOCK_HELD, "The advisory lock " + Sql.printable(key)
                + " (pg_try_advisory_lock(hashtext(...))) is held" + holder + ": another maintenance run is in progress; nothing was"
                + " changed. A session hours old and idle may be left by a killed run behind a proxy: end it with"
                + " pg_terminate_backend(pid) once you are sure no run is using it.");
    }

    /** A session age for operators: seconds under 2 min, minutes under 2 h, then hours and minutes. */
    static String age(long seconds) {
        if (seconds < 120) {
            return seconds + " s";
        }
        if (seconds < 7200) {
            return seconds / 60 + " min";
        }
        return seconds / 3600 + " h " + seconds % 3600 / 60 + " min";
    }
}
