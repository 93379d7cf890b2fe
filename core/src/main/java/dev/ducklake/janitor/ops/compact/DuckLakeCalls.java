package dev.ducklake.janitor.ops.compact;

import java.math.BigDecimal;

/**
 * The one place where the janitor spells DuckLake's maintenance calls (DuckDB SQL). Names are DuckDB string literals
 * (single quotes doubled), never identifiers spliced into SQL; numbers are formatted by Java. The signatures are those of
 * DuckLake {@code d8a1881e}: {@code ducklake_flush_inlined_data(catalog, schema_name =>, table_name =>)},
 * {@code ducklake_merge_adjacent_files(catalog, table, schema =>, max_compacted_files =>, max_file_size =>)},
 * {@code ducklake_rewrite_data_files(catalog, table, schema =>, delete_threshold =>)}.
 */
public final class DuckLakeCalls {

    private DuckLakeCalls() {
    }

    /**
     * A DuckDB string literal.
     *
     * @param s any text (not null)
     * @return {@code 's'} with every {@code '} doubled
     */
    public static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    /** @return {@code CALL ducklake_flush_inlined_data('lake', schema_name => 's', table_name => 't')} */
    public static String flush(String schema, String table) {
        return "CALL ducklake_flush_inlined_data(" + literal(DuckLakeEngine.ALIAS) + ", schema_name => " + literal(schema)
                + ", table_name => " + literal(table) + ")";
    }

    /**
     * @param maxCompactedFiles the cap, or null for none
     * @return {@code CALL ducklake_merge_adjacent_files('lake', 't', schema => 's'[, max_compacted_files => n])}
     */
    public static String merge(String schema, String table, Long maxCompactedFiles) {
        return merge(schema, table, maxCompactedFiles, null);
    }

    /**
     * @param maxCompactedFiles the cap, or null for none
     * @param maxFileSize the size filter, bytes (files at or above it are not selected), or null for none
     * @return {@code CALL ducklake_merge_adjacent_files('lake', 't', schema => 's'[, max_compacted_files => n][, max_file_size => b])}
     */
    public static String merge(String schema, String table, Long maxCompactedFiles, Long maxFileSize) {
        return "CALL ducklake_merge_adjacent_files(" + literal(DuckLakeEngine.ALIAS) + ", " + literal(table) + ", schema => "
                + literal(schema) + (maxCompactedFiles == null ? "" : ", max_compacted_files => " + maxCompactedFiles)
                + (maxFileSize == null ? "" : ", max_file_size => " + maxFileSize) + ")";
    }

    /** @return {@code CALL ducklake_rewrite_data_files('lake', 't', schema => 's', delete_threshold => 0.95)} */
    public static String rewrite(String schema, String table, double deleteThreshold) {
        return "CALL ducklake_rewrite_data_files(" + literal(DuckLakeEngine.ALIAS) + ", " + literal(table) + ", schema => "
                + literal(schema) + ", delete_threshold => " + BigDecimal.valueOf(deleteThreshold).toPlainString() + ")";
    }

    /**
     * The session setting that gives DuckLake's compaction a target file size other than the catalog's option (DuckLake
     * {@code d8a1881e} {@code DuckLakeCatalog::GetTargetFileSize} reads {@code ducklake_target_file_size} first).
     *
     * @param bytes the target, bytes (at least 1)
     * @return {@code SET ducklake_target_file_size = 'n bytes'}
     */
    public static String setTargetFileSize(long bytes) {
        return "SET ducklake_target_file_size = " + literal(bytes + " bytes");
    }

    /** @return the statement that gives the target back to the catalog's option */
    public static String resetTargetFileSize() {
        return "RESET ducklake_target_file_size";
    }
}
