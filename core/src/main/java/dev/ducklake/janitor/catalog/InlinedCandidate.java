package dev.ducklake.janitor.catalog;

import dev.ducklake.janitor.catalog.InlinedTableName;

import java.util.Comparator;

/**
 * An orphan inlined table found by the {@link InlinedTablesSurvey} (drop-orphan-inline-tables' unit of work): an
 * orphan registry row that passed the name guard (ctid set), or an unregistered table of an unreachable table_id (ctid
 * null; schemaVersion -1 for an inlined deletion table).
 *
 * @param kind where it was found
 * @param tableId its table_id
 * @param schemaVersion its schema_version (-1 for an inlined deletion table)
 * @param ctid the registry row's ctid {@code (block,offset)}, or null for an unregistered table
 */
public record InlinedCandidate(Origin kind, long tableId, long schemaVersion, String ctid) {

    /** Where a candidate table was found. */
    public enum Origin {
        /** A registry row of ducklake_inlined_data_tables and its table. */
        REGISTERED,
        /** An inlined-data table found in pg_class without any registry row. */
        UNREGISTERED_DATA,
        /** An inlined deletion table (never registered), found in pg_class. */
        INLINED_DELETE
    }

    /** Batch order: by kind, then table_id, schema_version, ctid (keyset order of the registry). */
    public static final Comparator<InlinedCandidate> ORDER = Comparator
            .comparing((InlinedCandidate c) -> c.kind)
            .thenComparingLong(InlinedCandidate::tableId)
            .thenComparingLong(InlinedCandidate::schemaVersion)
            .thenComparing(c -> c.ctid == null ? "" : c.ctid);

    /** @return DuckLake's name of its table */
    public String tableName() {
        return kind == Origin.INLINED_DELETE ? InlinedTableName.deleteTable(tableId)
                : InlinedTableName.dataTable(tableId, schemaVersion);
    }

    /** @return its schema_version, or null for an inlined deletion table */
    public Long schemaVersionOrNull() {
        return kind == Origin.INLINED_DELETE ? null : schemaVersion;
    }
}
