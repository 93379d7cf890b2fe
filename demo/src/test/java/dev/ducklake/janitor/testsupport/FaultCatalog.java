package dev.ducklake.janitor.testsupport;

import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.demo.DemoScenario;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;

/**
 * A leaked catalog for fault tests: {@link DemoScenario} (live tables with rows and superseded versions, a
 * non-empty orphan, a forgotten table_id, a recently dropped table still reachable) plus {@code leaked} empty
 * orphans, in a fresh schema of the shared test server or of a given one.
 */
public final class FaultCatalog {

    /** The schema. */
    public final String schema;
    /** The catalog before any run. */
    public final CatalogInvariants.Snapshot before;
    /** The empty, present, droppable orphans in the engine's order (table_id, schema_version). */
    public final List<CatalogInvariants.RegistryRow> orphans;

    private FaultCatalog(String schema, CatalogInvariants.Snapshot before) {
        this.schema = schema;
        this.before = before;
        this.orphans = before.registry().stream().filter(before::droppable)
                .filter(r -> before.tables.containsKey(r.tableName()) && before.tables.get(r.tableName()).isEmpty())
                .sorted(Comparator.comparing(CatalogInvariants.RegistryRow::tableId)
                        .thenComparing(CatalogInvariants.RegistryRow::schemaVersion))
                .toList();
    }

    /**
     * Builds the catalog on a connection.
     *
     * @param c a connection (autocommit)
     * @param schema a schema name not in use
     * @param leaked the number of leaked empty orphan tables
     * @return the catalog
     * @throws SQLException on database errors
     */
    public static FaultCatalog build(Connection c, String schema, int leaked) throws SQLException {
        DemoScenario.build(c, schema, leaked);
        return new FaultCatalog(schema, CatalogInvariants.snapshot(c, schema));
    }

    /**
     * Takes over a catalog already written into a schema (e.g. with extra hostile rows).
     *
     * @param c a connection
     * @param schema the metadata schema
     * @return the catalog, snapshotted now
     * @throws SQLException on database errors
     */
    public static FaultCatalog of(Connection c, String schema) throws SQLException {
        return new FaultCatalog(schema, CatalogInvariants.snapshot(c, schema));
    }

    /** The quoted, qualified name of the i-th droppable orphan table. */
    public String orphanTable(int i) {
        return Sql.qualified(schema, orphans.get(i).tableName());
    }

    /** Checks every invariant against the state before; returns the deleted registry rows. */
    public List<CatalogInvariants.RegistryRow> check(Connection c) throws SQLException {
        return CatalogInvariants.check(c, before);
    }
}
