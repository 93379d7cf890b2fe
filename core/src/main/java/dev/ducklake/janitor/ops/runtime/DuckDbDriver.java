package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;

import java.sql.Driver;

/**
 * DuckDB's JDBC driver, the product's optional in-process engine: not shaded into the janitor's jar ({@code provided}
 * in the build, the file {@value #JAR} next to it, which the jar's manifest names), loaded by class name only by the
 * commands that need it (flush-inlined-data and compact run DuckLake's functions with it; delete-orphan-files reads
 * Parquet inventories with it). One loader, so that each says the same thing when the jar is absent: exit 21 naming it.
 */
public final class DuckDbDriver {

    /** The driver's class. */
    public static final String CLASS_NAME = "org.duckdb.DuckDBDriver";
    /** The driver artifact the janitor is proven with (DuckDB 1.5.5, DuckLake d8a1881e). */
    public static final String ARTIFACT = "org.duckdb:duckdb_jdbc:1.5.5.0";
    /** The file name the jar's manifest Class-Path names, next to ducklake-janitor.jar. */
    public static final String JAR = "duckdb_jdbc-1.5.5.0.jar";

    private DuckDbDriver() {
    }

    /**
     * Loads the driver by class name.
     *
     * @param className the driver class ({@link #CLASS_NAME})
     * @param why what needs it, for the message (e.g. "flush-inlined-data and compact run DuckLake's own functions in an
     *     in-process DuckDB")
     * @return the driver
     * @throws JanitorException ENGINE_UNAVAILABLE naming the artifact to add and where
     */
    public static Driver load(String className, String why) throws JanitorException {
        try {
            Class<?> k = Class.forName(className, true, DuckDbDriver.class.getClassLoader());
            return (Driver) k.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
            throw new JanitorException(Reason.ENGINE_UNAVAILABLE, "DuckDB's JDBC driver (" + className + ") is not on the classpath: "
                    + why + ". Add " + ARTIFACT + " (the file " + JAR + " next to ducklake-janitor.jar, which its manifest names,"
                    + " or on the -cp of a classpath launch). Nothing was changed.", e);
        }
    }
}
