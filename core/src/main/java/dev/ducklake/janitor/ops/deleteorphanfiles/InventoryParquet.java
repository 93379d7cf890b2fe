package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.ops.runtime.DuckDbDriver;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.HashSet;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;

/**
 * The Parquet listing files of an S3 Inventory, read with DuckDB in process ({@code read_parquet} over a local copy of
 * each file; no catalog is attached): DuckDB's JDBC driver is the product's optional engine, loaded by class name
 * through {@link DuckDbDriver#load} (exit 21 naming the jar when it is absent). Rows are
 * streamed from the result set ({@code jdbc_stream_results}), so memory does not grow with the listing.
 *
 * <p>S3 Inventory's Parquet schema ({@code message s3.inventory}): {@code required binary bucket (UTF8)},
 * {@code required binary key (UTF8)}, {@code optional int64 size}, {@code optional int64 last_modified_date
 * (TIMESTAMP_MILLIS)}, then version, storage class and the other optional fields, which are not read. Keys are stored as
 * they are (only CSV listings URL-encode them): never decoded here.
 */
final class InventoryParquet implements AutoCloseable {

    private final Connection duck;

    private InventoryParquet(Connection duck) {
        this.duck = duck;
    }

    /**
     * Starts DuckDB in process: one thread, a small memory limit, no extension loaded or installed.
     *
     * @param driverClass DuckDB's driver class ({@link DuckDbDriver#CLASS_NAME})
     * @param tempDir DuckDB's temporary folder
     * @throws JanitorException ENGINE_UNAVAILABLE when the driver is absent or DuckDB does not start
     */
    static InventoryParquet open(String driverClass, Path tempDir) throws JanitorException {
        Driver driver = DuckDbDriver.load(driverClass, "delete-orphan-files reads the Parquet listing files of an"
                + " S3 Inventory with an in-process DuckDB (CSV inventories and plain lists are read without it)");
        Properties p = new Properties();
        p.setProperty("memory_limit", "128MB");
        p.setProperty("threads", "1");
        p.setProperty("temp_directory", tempDir.resolve("duckdb").toString());
        p.setProperty("autoload_known_extensions", "false");
        p.setProperty("autoinstall_known_extensions", "false");
        p.setProperty("jdbc_stream_results", "true");
        try {
            return new InventoryParquet(driver.connect("jdbc:duckdb:", p));
        } catch (SQLException | RuntimeException | LinkageError e) {
            throw new JanitorException(Reason.ENGINE_UNAVAILABLE, "DuckDB could not start in process ("
                    + DuckDbDriver.ARTIFACT + ") to read a Parquet inventory: " + e.getMessage() + " Nothing was deleted.", e);
        }
    }

    /**
     * Reads one listing file into the sorter.
     *
     * @param file a local copy of the listing file (checked against the manifest)
     * @param source its name, for messages
     * @param sourceBucket the manifest's {@code sourceBucket}, for a file without a {@code bucket} column
     * @param sorter receives the entries
     * @throws JanitorException USAGE for a file that is not an S3 Inventory listing (no {@code key} column, not
     *     Parquet, a row without a key)
     */
    void read(Path file, String source, String sourceBucket, Inventory.Sorter sorter) throws JanitorException {
        String from = "read_parquet('" + file.toString().replace("'", "''") + "')";
        try (Statement st = duck.createStatement()) {
            Set<String> columns = new HashSet<>();
            try (ResultSet rs = st.executeQuery("DESCRIBE SELECT * FROM " + from)) {
                while (rs.next()) {
                    columns.add(rs.getString(1).toLowerCase(Locale.ROOT));
                }
            }
            if (!columns.contains("key") || !columns.contains("bucket") && sourceBucket.isEmpty()) {
                throw new JanitorException(Reason.USAGE, "The inventory listing file " + CatalogInspector.printable(source)
                        + " has no key column (or neither a bucket column nor the manifest's sourceBucket): columns " + columns
                        + ". Nothing was deleted.");
            }
            // epoch_ms reads a TIMESTAMP (TIMESTAMP_MILLIS read without its UTC flag) and a TIMESTAMPTZ alike, as UTC
            String sql = "SELECT " + (columns.contains("bucket") ? "bucket" : "NULL") + ", key, "
                    + (columns.contains("size") ? "size" : "NULL") + ", "
                    + (columns.contains("last_modified_date") ? "epoch_ms(last_modified_date)" : "NULL") + " FROM " + from;
            long n = 0;
            try (ResultSet rs = st.executeQuery(sql)) {
                while (rs.next()) {
                    n++;
                    String bucket = rs.getString(1);
                    String key = rs.getString(2);
                    if (key == null) {
                        throw Inventory.bad(source, n, "a row without a key");
                    }
                    long size = rs.getLong(3);
                    if (rs.wasNull() || size < 0) {
                        size = -1;
                    }
                    long ms = rs.getLong(4);
                    Instant time = rs.wasNull() ? null : Instant.ofEpochMilli(ms);
                    sorter.add(source, n, "s3://" + (bucket == null ? sourceBucket : bucket) + "/" + key, size, time);
                }
            }
        } catch (SQLException e) {
            throw new JanitorException(Reason.USAGE, "The inventory listing file " + CatalogInspector.printable(source)
                    + " could not be read as Parquet: " + e.getMessage() + ". Nothing was deleted.", e);
        }
    }

    @Override
    public void close() {
        try {
            duck.close();
        } catch (SQLException ignored) {
            // an in-memory database
        }
    }
}
