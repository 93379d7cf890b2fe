package dev.ducklake.janitor.catalog.health;

import dev.ducklake.janitor.catalog.OrphanPredicate;
import dev.ducklake.janitor.pg.Sql;

/**
 * "Reachable" for rules that need the complement of {@link OrphanPredicate} without a per-row subquery. Written as
 * {@code NOT <unreachable>} the predicate's {@code NOT EXISTS} is no longer a top-level conjunct, so PostgreSQL cannot
 * turn it into an anti-join and runs a correlated scan of the unindexed {@code ducklake_table} per row (quadratic: minutes
 * at 230,000 tables). Instead the unreachable ids of the rule's own table are computed once, with {@link OrphanPredicate}
 * itself (hash anti-join), into a CTE, and a row is reachable when its id is not among them (another hash anti-join).
 */
final class Reachability {

    private Reachability() {
    }

    /**
     * A WITH clause defining the CTE {@code unreachable(table_id)}: the distinct table_ids of {@code table} that
     * {@link OrphanPredicate#unreachable} calls unreachable.
     *
     * @param schema the metadata schema
     * @param table the catalog table whose ids are classified (e.g. {@code ducklake_inlined_data_tables})
     * @return {@code WITH unreachable AS MATERIALIZED (...) } (trailing space), without bind parameters
     */
    static String with(String schema, String table) {
        return "WITH " + cte(schema, Sql.qualified(schema, table)) + " ";
    }

    /**
     * The CTE definition {@code unreachable AS MATERIALIZED (...)} over the table_ids of {@code source}, for a WITH list
     * that defines {@code source} first (e.g. a small CTE of candidate rows, so only their ids are classified).
     *
     * @param schema the metadata schema
     * @param source a quoted table name or the name of an earlier CTE with a {@code table_id} column
     * @return the CTE definition, without bind parameters
     */
    static String cte(String schema, String source) {
        return OrphanPredicate.unreachableCte(schema, source);
    }

    /**
     * A boolean SQL expression, true when the table_id expression is reachable (not in the CTE of {@link #with}).
     *
     * @param tableIdExpr the outer query's table_id expression (engine-written SQL)
     * @return the parenthesised expression
     */
    static String reachable(String tableIdExpr) {
        return OrphanPredicate.notInUnreachable(tableIdExpr);
    }
}
