package dev.ducklake.janitor.pg;

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

    /**
     * Renders a catalog-supplied string for a message: single-quoted, with control characters, invisible
     * format characters (bidi overrides, zero-width) and line separators escaped (backslash-u and four hex digits), cut at
     * 200 characters, so that a hostile name cannot rewrite a terminal or a log line.
     *
     * @param s any string, may be null
     * @return a printable form
     */
    public static String printable(String s) {
        if (s == null) {
            return "NULL";
        }
        int n = Math.min(s.length(), 200);
        return "'" + escape(s.substring(0, n), true) + (s.length() > n ? "..." : "") + "'";
    }

    /**
     * Renders a string for one line of output (a file event line), unquoted and whole: returned unchanged unless it
     * holds a control character, an invisible format character or a line separator, which would split or rewrite the
     * line (a path with a newline forging a second event line); then escaped as {@link #printable} escapes it (the
     * backslash too, so that the escaped form reads one way).
     *
     * @param s any string, not null
     * @return it, or its escaped form
     */
    public static String lineSafe(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (unprintable(s.charAt(i))) {
                return escape(s, false);
            }
        }
        return s;
    }

    private static boolean unprintable(char ch) {
        return Character.isISOControl(ch) || Character.getType(ch) == Character.FORMAT || ch == '\u2028' || ch == '\u2029';
    }

    private static String escape(String s, boolean quoted) {
        StringBuilder b = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '\n') {
                b.append("\\n");
            } else if (ch == '\r') {
                b.append("\\r");
            } else if (ch == '\t') {
                b.append("\\t");
            } else if (ch == '\\') {
                b.append("\\\\");
            } else if (ch == '\'' && quoted) {
                b.append("\\'");
            } else if (unprintable(ch)) {
                b.append(String.format("\\u%04x", (int) ch));
            } else {
                b.append(ch);
            }
        }
        return b.toString();
    }
}
