package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.catalog.InlinedTableName;

import java.util.Comparator;

/**
 * One unit of work: an orphan registry row that passed the name guard (ctid set), or an unregistered table of an
 * unreachable table_id (ctid null; schemaVersion -1 for an inlined deletion table).
 */
record Candidate(Kind kind, long tableId, long schemaVersion, String ctid) {

    /** Where a candidate table was found. */
    enum Kind {
        /** A registry row of ducklake_inlined_data_tables and its table. */
        REGISTERED(DropOrphanInlineTablesResult.KIND_REGISTERED),
        /** An inlined-data table found in pg_class without any registry row. */
        UNREGISTERED_DATA(DropOrphanInlineTablesResult.KIND_UNREGISTERED),
        /** An inlined deletion table (never registered), found in pg_class. */
        INLINED_DELETE(DropOrphanInlineTablesResult.KIND_INLINED_DELETE);

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** Batch order: by kind, then table_id, schema_version, ctid (keyset order of the registry). */
    static final Comparator<Candidate> ORDER = Comparator
            .comparing((Candidate c) -> c.kind)
            .thenComparingLong(Candidate::tableId)
            .thenComparingLong(Candidate::schemaVersion)
            .thenComparing(c -> c.ctid == null ? "" : c.ctid);

    String tableName() {
        return kind == Kind.INLINED_DELETE ? InlinedTableName.deleteTable(tableId)
                : InlinedTableName.dataTable(tableId, schemaVersion);
    }

    Long schemaVersionOrNull() {
        return kind == Kind.INLINED_DELETE ? null : schemaVersion;
    }

    DropOrphanInlineTablesResult.NonEmptyTable nonEmpty(Long rows, boolean dropped) {
        return new DropOrphanInlineTablesResult.NonEmptyTable(tableName(), kind.label, tableId, schemaVersionOrNull(), rows, dropped);
    }
}
