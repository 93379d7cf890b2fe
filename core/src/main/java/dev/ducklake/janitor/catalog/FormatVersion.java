package dev.ducklake.janitor.catalog;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The DuckLake catalog format versions this tool knows, as stored in
 * {@code ducklake_metadata(key='version')}. Source: DuckLake {@code src/common/ducklake_version.cpp} (duckdb/ducklake
 * commit {@code 2ed0a0be}, 2026-08-20, the newest source readable here, knows 0.1 to 1.1-dev1); {@code 1.1} is the
 * released format of DuckDB 2.0 (2026-10-21; ducklake.select "Upgrading to DuckLake 1.1"), whose source is not
 * readable here: see docs/format-versions.md for what of its layout was verified and what was taken from the docs.
 * Any other value makes DuckLake itself throw "Unsupported ducklake_version", and this tool refuses it.
 */
public enum FormatVersion {
    /** 0.1: 19 catalog tables, no scope column in ducklake_metadata. */
    V0_1("0.1", false),
    /** 0.2. */
    V0_2("0.2", false),
    /** 0.3-dev1 (development catalog). */
    V0_3_DEV1("0.3-dev1", false),
    /** 0.3. */
    V0_3("0.3", false),
    /** 0.4-dev1 (development catalog). */
    V0_4_DEV1("0.4-dev1", false),
    /** 0.4: same layout as 1.0. */
    V0_4("0.4", false),
    /** 1.0: the stable specification. */
    V1_0("1.0", false),
    /** 1.1-dev1: inlined tables' system columns carry the {@code _ducklake_} prefix. */
    V1_1_DEV1("1.1-dev1", true),
    /**
     * 1.1 (DuckDB 2.0): the 1.1-dev1 layout plus {@code ducklake_schema.parent_schema_id} (nested schemas) and
     * {@code min_is_exact} / {@code max_is_exact} on both column-stats tables; inlined system columns prefixed.
     */
    V1_1("1.1", true);

    private final String text;
    private final boolean prefixedInlinedColumns;

    FormatVersion(String text, boolean prefixedInlinedColumns) {
        this.text = text;
        this.prefixedInlinedColumns = prefixedInlinedColumns;
    }

    /** The version string as DuckLake writes it. */
    public String text() {
        return text;
    }

    /**
     * Whether inlined-data tables name their system columns {@code _ducklake_row_id},
     * {@code _ducklake_begin_snapshot}, {@code _ducklake_end_snapshot} (1.1-dev1) rather than
     * {@code row_id, begin_snapshot, end_snapshot} (up to 1.0).
     */
    public boolean prefixedInlinedColumns() {
        return prefixedInlinedColumns;
    }

    /**
     * The names of the three system columns every inlined-data table of this format starts with: the one place that
     * knows them, for every SQL that reads inlined rows' snapshot columns. Source: DuckLake's
     * {@code MigrateInlinedColumnNames} ({@code src/storage/ducklake_metadata_manager.cpp}, commit {@code 2ed0a0be}),
     * which renames them in every registered inlined-data table when a catalog moves from 1.0 to 1.1(-dev1).
     * Inlined <em>deletion</em> tables ({@code ducklake_inlined_delete_<id>}) are not renamed and keep
     * {@code file_id, row_id, begin_snapshot} in every format.
     *
     * @return {@code row_id, begin_snapshot, end_snapshot} up to 1.0; the {@code _ducklake_}-prefixed names from 1.1-dev1
     */
    public InlinedColumns inlinedColumns() {
        return prefixedInlinedColumns ? InlinedColumns.PREFIXED : InlinedColumns.PLAIN;
    }

    /**
     * Whether {@code ducklake_schema} has {@code parent_schema_id}, i.e. schemas may be nested (format 1.1; the
     * ducklake.select page "Nested Schemas": "Nested schemas require DuckLake format version 1.1").
     *
     * @return true for 1.1
     */
    public boolean mayNestSchemas() {
        return this == V1_1;
    }

    /**
     * The system column names of an inlined-data table.
     *
     * @param rowId the row id column
     * @param beginSnapshot the inserting snapshot column
     * @param endSnapshot the deleting snapshot column (NULL while the row is live)
     */
    public record InlinedColumns(String rowId, String beginSnapshot, String endSnapshot) {
        /** The names up to format 1.0. */
        public static final InlinedColumns PLAIN = new InlinedColumns("row_id", "begin_snapshot", "end_snapshot");
        /** The names from format 1.1-dev1 on. */
        public static final InlinedColumns PREFIXED = new InlinedColumns("_ducklake_row_id", "_ducklake_begin_snapshot",
                "_ducklake_end_snapshot");

        /** @return the three names in table order */
        public List<String> all() {
            return List.of(rowId, beginSnapshot, endSnapshot);
        }
    }

    /**
     * The name of an inlined-data table's system column in this version (a spelling of {@link #inlinedColumns()}).
     *
     * @param base {@code row_id}, {@code begin_snapshot} or {@code end_snapshot}
     * @return {@code base}, or {@code _ducklake_<base>} from 1.1-dev1 on
     * @throws IllegalArgumentException for any other base name
     */
    public String inlinedSystemColumn(String base) {
        InlinedColumns c = inlinedColumns();
        return switch (base) {
            case "row_id" -> c.rowId();
            case "begin_snapshot" -> c.beginSnapshot();
            case "end_snapshot" -> c.endSnapshot();
            default -> throw new IllegalArgumentException("not an inlined system column: " + base);
        };
    }

    /**
     * Looks a version string up.
     *
     * @param text the value of ducklake_metadata's version key
     * @return the known version, or empty when the string is not one DuckLake defines
     */
    public static Optional<FormatVersion> of(String text) {
        return Arrays.stream(values()).filter(v -> v.text.equals(text)).findFirst();
    }

    /** All known version strings, oldest first. */
    public static List<String> knownTexts() {
        return Arrays.stream(values()).map(FormatVersion::text).toList();
    }
}
