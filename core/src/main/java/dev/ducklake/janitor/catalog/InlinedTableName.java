package dev.ducklake.janitor.catalog;

import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The name guard for inlined-data tables. DuckLake names them
 * {@code ducklake_inlined_data_<table_id>_<schema_version>} ({@code InlinedTableNameFor} in DuckLake's
 * metadata manager) and its inlined deletion tables {@code ducklake_inlined_delete_<table_id>}.
 * Only a name that is exactly such a string, with ASCII digits and no leading zeros, may ever be dropped;
 * everything else (trailing newline, quotes, other digits, a different prefix) is refused.
 */
public final class InlinedTableName {

    /** Prefix of every inlined-data table. */
    public static final String DATA_PREFIX = "ducklake_inlined_data_";
    /** Prefix of every inlined deletion table. */
    public static final String DELETE_PREFIX = "ducklake_inlined_delete_";

    /** The whole-string pattern of an inlined-data table name; {@link Matcher#matches()} anchors both ends. */
    private static final Pattern DATA = Pattern.compile("ducklake_inlined_data_(0|[1-9][0-9]{0,18})_(0|[1-9][0-9]{0,18})");
    /** The whole-string pattern of an inlined deletion table name. */
    private static final Pattern DELETE = Pattern.compile("ducklake_inlined_delete_(0|[1-9][0-9]{0,18})");

    /**
     * PostgreSQL regular expression (for {@code relname ~ ?}, as a bind value) matching every inlined-data table
     * name; a coarse pre-filter for pg_class scans that {@link #parseData} then confirms (LIKE cannot be used:
     * its {@code _} is a wildcard and the registry table itself would match).
     */
    public static final String DATA_REGEX = "^ducklake_inlined_data_[0-9]+_[0-9]+$";
    /** PostgreSQL regular expression matching every inlined deletion table name; see {@link #DATA_REGEX}. */
    public static final String DELETE_REGEX = "^ducklake_inlined_delete_[0-9]+$";
    /**
     * PostgreSQL regular expression matching the {@code <inlined-data table>_migrated} copies that DuckLake 1.1's
     * PostgreSQL migration creates while it rewrites an inlined-data table with 0.3-era column types (create the copy,
     * copy the rows, drop the original, rename the copy; issue 22 and ducklake.select's 1.1 migration notes, not in the
     * source readable here). One left behind by an interrupted migration may hold the only copy of its rows: no command
     * ever drops it. None of {@link #DATA_REGEX}, {@link #DELETE_REGEX}, {@link #ANY_REGEX} matches it (they are
     * anchored at the end), so no survey ever lists it as a drop candidate; {@code check} reports it.
     */
    public static final String MIGRATED_REGEX = "^ducklake_inlined_data_[0-9]+_[0-9]+_migrated$";
    /** The suffix of those copies. */
    public static final String MIGRATED_SUFFIX = "_migrated";
    /** PostgreSQL regular expression matching both kinds; see {@link #DATA_REGEX}. */
    public static final String ANY_REGEX = "^ducklake_inlined_(data_[0-9]+_[0-9]+|delete_[0-9]+)$";

    private InlinedTableName() {
    }

    /**
     * The name DuckLake gives the inlined-data table of a table and schema version.
     *
     * @param tableId the DuckLake table_id (≥ 0)
     * @param schemaVersion the schema version (≥ 0)
     * @return {@code ducklake_inlined_data_<tableId>_<schemaVersion>}
     */
    public static String dataTable(long tableId, long schemaVersion) {
        return DATA_PREFIX + tableId + "_" + schemaVersion;
    }

    /**
     * The name DuckLake gives the inlined deletion table of a table ({@code ducklake_inlined_delete_<table_id>},
     * never registered in {@code ducklake_inlined_data_tables}).
     *
     * @param tableId the DuckLake table_id (≥ 0)
     * @return {@code ducklake_inlined_delete_<tableId>}
     */
    public static String deleteTable(long tableId) {
        return DELETE_PREFIX + tableId;
    }

    /**
     * The name guard: whether a registry row may be acted on. True only when the ids are non-null and
     * non-negative and the name is exactly the one DuckLake would give them.
     *
     * @param tableName the registry's table_name (may be null or hostile)
     * @param tableId the registry's table_id (may be null)
     * @param schemaVersion the registry's schema_version (may be null)
     * @return true when the row names a genuine inlined-data table of that table and version
     */
    public static boolean guardAllows(String tableName, Long tableId, Long schemaVersion) {
        if (tableName == null || tableId == null || schemaVersion == null || tableId < 0 || schemaVersion < 0) {
            return false;
        }
        return tableName.equals(dataTable(tableId, schemaVersion));
    }

    /**
     * Parses an inlined-data table name.
     *
     * @param name a relation name
     * @return {table_id, schema_version}, or empty when the name is not exactly an inlined-data table name
     */
    public static Optional<long[]> parseData(String name) {
        if (name == null) {
            return Optional.empty();
        }
        Matcher m = DATA.matcher(name);
        if (!m.matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * Parses an inlined deletion table name.
     *
     * @param name a relation name
     * @return the table_id, or empty when the name is not exactly an inlined deletion table name
     */
    public static OptionalLong parseDelete(String name) {
        if (name == null) {
            return OptionalLong.empty();
        }
        Matcher m = DELETE.matcher(name);
        if (!m.matches()) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(m.group(1)));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
