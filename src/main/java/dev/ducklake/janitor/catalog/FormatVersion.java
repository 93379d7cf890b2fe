package dev.ducklake.janitor.catalog;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The DuckLake catalog format versions this tool knows, as stored in
 * {@code ducklake_metadata(key='version')}. Source: DuckLake {@code src/common/ducklake_version.cpp};
 * any other value makes DuckLake itself throw "Unsupported ducklake_version", and this tool refuses it.
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
    V1_1_DEV1("1.1-dev1", true);

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
     * The name of an inlined-data table's system column in this version.
     *
     * @param base {@code row_id}, {@code begin_snapshot} or {@code end_snapshot}
     * @return {@code base}, or {@code _ducklake_<base>} when {@link #prefixedInlinedColumns()}
     */
    public String inlinedSystemColumn(String base) {
        return prefixedInlinedColumns ? "_ducklake_" + base : base;
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
