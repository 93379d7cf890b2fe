package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.pg.ConnectionSpec;
import dev.ducklake.janitor.pg.Sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Why DuckLake's ATTACH failed when the cause is the catalog's own contents, not the connection: a catalog option
 * DuckLake parses at ATTACH that holds a value it refuses. DuckLake 1.5 reads {@code encrypted} from
 * {@code ducklake_metadata} and accepts exactly {@code true} or {@code false} ("Not implemented Error: Encrypted should
 * be either true or false" otherwise). Read over the janitor's own connection, so it does not depend on DuckDB's text.
 */
final class CatalogOptionValues {

    private CatalogOptionValues() {
    }

    /**
     * @param spec the catalog's connection
     * @param metadataSchema the schema holding the catalog
     * @param attachFailure DuckDB's error (kept as the cause)
     * @return an {@link Reason#UNSAFE_CATALOG_STATE} error naming the option and its value, or null when every option
     *     DuckLake parses at ATTACH is valid (or the catalog cannot be read now: then the ATTACH error stands)
     */
    static JanitorException invalid(ConnectionSpec spec, String metadataSchema, SQLException attachFailure) {
        try (Connection c = spec.openRaw();
             PreparedStatement ps = c.prepareStatement("SELECT value FROM " + Sql.qualified(metadataSchema, "ducklake_metadata")
                     + " WHERE key = 'encrypted' AND value IS DISTINCT FROM 'true' AND value IS DISTINCT FROM 'false' LIMIT 1");
             ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                return null;
            }
            String value = rs.getString(1);
            return new JanitorException(Reason.UNSAFE_CATALOG_STATE, "DuckLake cannot attach the catalog " + spec.describe()
                    + " schema '" + metadataSchema + "': its option 'encrypted' (ducklake_metadata) holds " + Sql.printable(value) + ", and DuckLake accepts only 'true' or 'false'. Nothing was changed; set it to"
                    + " what the lake's files are (UPDATE " + Sql.qualified(metadataSchema, "ducklake_metadata")
                    + " SET value = 'false' WHERE key = 'encrypted', or 'true' if its data files are encrypted).", attachFailure);
        } catch (SQLException e) {
            return null;
        }
    }
}
