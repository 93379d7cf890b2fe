package dev.ducklake.janitor.catalog.health;

import java.sql.SQLException;
import java.util.List;

/**
 * {@code catalog_bloat}: system catalogs {@code pg_class}, {@code pg_attribute}, {@code pg_type} and {@code pg_depend} of
 * the catalog database whose dead rows ({@code pg_stat_sys_tables.n_dead_tup}, the statistics collector's estimate) are at
 * least {@link RuleSettings#bloatMinDeadRows()} and above {@link RuleSettings#bloatDeadRatio()} of their live rows (the
 * statistics functions behind {@code pg_stat_sys_tables}). Unit: system catalogs (at most 4). Database-wide, not per
 * metadata schema.
 *
 * <p>Source: every inlined table DuckLake creates and every table drop-orphan-inline-tables (or DuckLake) drops leaves dead
 * rows in these catalogs (one per column in pg_attribute); DuckDB's ATTACH reads pg_class/pg_attribute/pg_type, and the
 * DuckLake docs' recommended maintenance asks to VACUUM a PostgreSQL catalog. Fix: let autovacuum or a plain
 * {@code VACUUM pg_catalog.pg_attribute} (and the others) run; never VACUUM FULL on a live catalog (it locks the system
 * catalog exclusively and stops every query of the database). Privileges: reading needs none (pg_stat_sys_tables is
 * public); VACUUM of a system catalog needs a superuser or the database owner (PostgreSQL 16 and earlier), or the MAINTAIN
 * privilege / pg_maintain role (PostgreSQL 17).
 */
final class CatalogBloatRule extends NamedRule {

    private static final String[] CATALOGS = {"pg_class", "pg_attribute", "pg_type", "pg_depend"};

    CatalogBloatRule() {
        super("catalog_bloat",
                "let autovacuum run, or run a plain VACUUM of the named system catalogs (superuser or database owner; pg_maintain "
                        + "on PostgreSQL 17); never VACUUM FULL on a live catalog");
    }

    @Override
    public Finding evaluate(CheckContext ctx) throws SQLException {
        // the statistics functions on the four catalogs' pg_class rows directly: the pg_stat_* views aggregate over every
        // relation of the database (hundreds of thousands on a leaked catalog) before filtering
        String rel = "(SELECT c.relname::text AS relname, pg_catalog.pg_stat_get_dead_tuples(c.oid) AS n_dead_tup,"
                + " pg_catalog.pg_stat_get_live_tuples(c.oid) AS n_live_tup, greatest(pg_catalog.pg_stat_get_last_vacuum_time(c.oid),"
                + " pg_catalog.pg_stat_get_last_autovacuum_time(c.oid)) AS last_vacuum FROM pg_catalog.pg_class c"
                + " WHERE c.relnamespace = 'pg_catalog'::regnamespace AND c.relname::text = ANY (?)) s";
        String from = " FROM " + rel + " WHERE n_dead_tup >= ? AND n_dead_tup > ? * n_live_tup";
        java.sql.Array names = ctx.conn().createArrayOf("text", CATALOGS);
        long minDead = ctx.settings().bloatMinDeadRows();
        double ratio = ctx.settings().bloatDeadRatio();
        long count = ctx.count("SELECT count(*)" + from, names, minDead, ratio);
        List<String> examples = count == 0 ? List.of() : ctx.examples("SELECT relname, n_dead_tup, n_live_tup,"
                + " coalesce(last_vacuum::text, 'never')" + from + " ORDER BY n_dead_tup DESC LIMIT ?",
                List.of("", "dead_rows=", "live_rows=", "last_vacuum="), names, minDead, ratio, ctx.maxExamples());
        return finding(count, examples);
    }
}
