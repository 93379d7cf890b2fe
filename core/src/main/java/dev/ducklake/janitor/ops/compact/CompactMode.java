package dev.ducklake.janitor.ops.compact;

/** Which DuckLake functions a run of {@link CompactTables} plans and calls. */
public enum CompactMode {
    /** {@code ducklake_flush_inlined_data}: inlined rows and inlined file deletions to Parquet. */
    FLUSH_INLINED_DATA("flush-inlined-data"),
    /** {@code ducklake_merge_adjacent_files}, then {@code ducklake_rewrite_data_files}. */
    COMPACT("compact");

    private final String operation;

    CompactMode(String operation) {
        this.operation = operation;
    }

    /** The command (operation) name. */
    public String operation() {
        return operation;
    }
}
