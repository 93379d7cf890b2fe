package dev.ducklake.janitor.catalog;

/**
 * The one place where SQL identifiers are quoted. Every schema, table or column name that the engine
 * puts into SQL text goes through {@link #ident(String)}; values never go into SQL text at all, they are
 * bind parameters.
 */
public final class Sql {

    private Sql() {
    }

    /**
     * Quotes one identifier the PostgreSQL way: wrapped in double quotes, embedded double quotes doubled.
     * The result always names exactly the given string (no case folding).
     *
     * @param name the identifier, any characters
     * @return the quoted identifier
     * @throws IllegalArgumentException if the name is null, empty or contains a NUL character, which
     *     PostgreSQL cannot represent
     */
    public static String ident(String name) {
        if (name == null || name.isEmpty() || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a valid SQL identifier: " + (name == null ? "null" : "'" + name + "'"));
        }
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /**
     * Quotes a schema-qualified name: {@code "schema"."name"}.
     *
     * @param schema the schema name
     * @param name the object name
     * @return the qualified, quoted name
     * @throws IllegalArgumentException as {@link #ident(String)}
     */
    public static String qualified(String schema, String name) {
        return ident(schema) + '.' + ident(name);
    }
}
