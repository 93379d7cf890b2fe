package dev.ducklake.janitor.pg;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Table privileges checked up front, so that a run whose role lacks one for a later step fails before its first change
 * instead of halfway (issue 23: a missing privilege ends the run with exit 8 and changes nothing).
 */
public final class TablePrivileges {

    private TablePrivileges() {
    }

    /**
     * The tables of a schema on which the session's role lacks a privilege ({@code has_table_privilege}, so grants held
     * through role membership count).
     *
     * @param c the session
     * @param schema the metadata schema
     * @param tables table names in that schema
     * @param privilege {@code "DELETE"}, {@code "SELECT"}, ...
     * @return the table names without the privilege, in the order given; empty when all have it
     * @throws SQLException on database errors (a table that does not exist among them)
     */
    public static List<String> missing(Connection c, String schema, Collection<String> tables, String privilege) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_catalog.has_table_privilege(?, ?)")) {
            for (String t : tables) {
                ps.setString(1, Sql.qualified(schema, t));
                ps.setString(2, privilege);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (!rs.getBoolean(1)) {
                        out.add(t);
                    }
                }
            }
        }
        return out;
    }
}
