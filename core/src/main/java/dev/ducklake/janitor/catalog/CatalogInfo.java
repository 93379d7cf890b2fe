package dev.ducklake.janitor.catalog;

/**
 * What {@link CatalogInspector} found in a metadata schema.
 *
 * @param schema the Postgres schema holding the ducklake_* tables
 * @param version the catalog format version
 * @param hasInlinedRegistry whether {@code ducklake_inlined_data_tables} exists
 * @param snapshotCount rows in ducklake_snapshot (≥ 1)
 * @param minSnapshotId the oldest retained snapshot id
 * @param maxSnapshotId the newest snapshot id
 */
public record CatalogInfo(String schema, FormatVersion version, boolean hasInlinedRegistry, long snapshotCount,
                          long minSnapshotId, long maxSnapshotId) {
}
