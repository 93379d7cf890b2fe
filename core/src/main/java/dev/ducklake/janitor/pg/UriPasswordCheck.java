package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;

import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Set;

/**
 * Refuses a {@code postgresql://} or {@code jdbc:postgresql://} URI whose user:password part may hold a character
 * that ends it early, before anything of the URI is read: a raw password {@code Xy7/kLm} in
 * {@code postgresql://jan:Xy7/kLm@h/db} makes a URI parser (libpq's too) read host {@code jan}, port {@code Xy7} and
 * database {@code kLm@h/db}, and every message or document naming the port, the database or a parameter then shows
 * a piece of the password. The messages here quote no part of the string.
 */
final class UriPasswordCheck {

    /** How the operator fixes it, in every refusal. */
    static final String FIX = "percent-encode the password in the URI (/ as %2F, ? as %3F, # as %23, @ as %40, % as %25, "
            + "space as %20, [ as %5B, ] as %5D, & in a query value as %26), or leave the password out of the string and give it "
            + "with PGPASSWORD, --password-file or ~/.pgpass (the string is not shown: it may hold a password).";

    /** Query keys whose value may hold a raw '@' (a user name such as {@code jan@corp}, a password in the query). */
    private static final Set<String> JDBC_KEYS = Set.of("ApplicationName", "connectTimeout", "gssEncMode", "channelBinding",
            "targetServerType", "metadata_schema");

    private UriPasswordCheck() {
    }

    /**
     * @param s a URI ({@code postgresql://…}, {@code postgres://…}, or a JDBC URL without its {@code jdbc:})
     * @throws JanitorException {@link Reason#USAGE} when an '@' follows the first '/', '?' or '#' after the authority
     *     start (unless every such '@' is inside the value of a known query parameter such as {@code user=jan@corp}), or
     *     when the URI has a '#' (libpq keeps it in the value; a URI parser would drop what follows it)
     */
    static void check(String s) throws JanitorException {
        int sep = s.indexOf("://");
        if (sep < 0) {
            return;
        }
        int start = sep + 3;
        int lastAt = s.lastIndexOf('@');
        int delimiter = firstOf(s, start, "/?#");
        if (lastAt > start && delimiter >= 0 && delimiter < lastAt && !onlyInQueryValues(s, delimiter)) {
            throw new JanitorException(Reason.USAGE, "The catalog URI has an '@' after a '/', '?' or '#' that would end its "
                    + "user:password part early: the password (or the user name) probably holds one of / ? # @ unencoded, and the "
                    + "URI would be read with a piece of it as the host, port or database. Nothing was tried; " + FIX);
        }
        if (s.indexOf('#', start) >= 0) {
            throw new JanitorException(Reason.USAGE, "The catalog URI holds a '#', which would cut off the rest of it as a "
                    + "fragment: write a '#' in a password or another value as %23; or " + FIX);
        }
    }

    /**
     * The error for a URI that {@link java.net.URI} refuses: with an '@' after the scheme the bad character is most
     * likely in a password, so neither the position nor the string is given, only the fix.
     *
     * @param s the URI
     * @param e the parser's exception ({@link URISyntaxException#getReason()} never holds the input)
     * @return the error to throw
     */
    static JanitorException unreadable(String s, URISyntaxException e) {
        int sep = s.indexOf("://");
        if (sep >= 0 && s.lastIndexOf('@') > sep) {
            return new JanitorException(Reason.USAGE, "The catalog URI cannot be read (" + e.getReason().toLowerCase(Locale.ROOT)
                    + "): a password (or user name) in it probably holds a character that must be percent-encoded; " + FIX);
        }
        return new JanitorException(Reason.USAGE, "The catalog URI is malformed at character " + e.getIndex() + ": "
                + e.getReason() + "; percent-encode special characters in its values (space as %20, % as %25, # as %23).");
    }

    /** Whether every '@' from {@code from} on lies inside the value of a known query parameter ({@code user=jan@corp}). */
    private static boolean onlyInQueryValues(String s, int from) {
        int q = s.indexOf('?', from);
        if (q < 0 || s.indexOf('@', from) < q) {
            return false;
        }
        for (String pair : s.substring(q + 1).split("&", -1)) {
            int at = pair.indexOf('@');
            if (at < 0) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq < 0 || eq > at) {
                return false;
            }
            String key = pair.substring(0, eq);
            if (!ConnectionStrings.KNOWN_KEYS.contains(key) && !JDBC_KEYS.contains(key)) {
                return false;
            }
        }
        return true;
    }

    private static int firstOf(String s, int from, String chars) {
        for (int i = from; i < s.length(); i++) {
            if (chars.indexOf(s.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }
}
