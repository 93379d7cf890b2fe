package dev.ducklake.janitor;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one redaction of anything that could be a password in text that quotes a connection string or a
 * configuration value: error messages, JSON documents, log lines. It works on raw text, so it also covers strings
 * that do not parse (a mistyped scheme {@code postgressql://bob:pw@h/db}, {@code postgresql:/…}, {@code password:pw}
 * instead of {@code password=pw}, an unterminated quote), and it errs on the side of redacting:
 * <ul>
 *   <li><b>userinfo</b>: in a token {@code scheme:/…} or {@code user:…@host} (no whitespace), everything between
 *       the first {@code :} after the scheme's slashes and the token's last {@code @};</li>
 *   <li><b>password-like keys</b>: the value after any key containing {@code pass}, {@code pwd}, {@code secret},
 *       {@code token} or {@code credential}, or the key {@code pw}, followed by {@code =} or {@code :} (so
 *       {@code password=…}, {@code sslpassword=…}, {@code PGPASSWORD=…}, {@code ?password=…&}, {@code "password": "…"},
 *       YAML's {@code password: …}): a quoted value to its closing quote (or the end of the text when it is not
 *       closed), an unquoted value up to {@code &} or to the next {@code key=} pair, else to the end of the text
 *       (an unquoted password with a space must not leak its second half). Keys naming where a password is
 *       ({@code password_file}, {@code passfile}, {@code password_env}) keep their value: a path or a variable name.</li>
 * </ul>
 * Every redacted span becomes {@code ***}.
 */
public final class Secrets {

    /** What replaces a redacted value. */
    public static final String MASK = "***";

    private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:/+");
    private static final Pattern KEY = Pattern.compile(
            "(?<![A-Za-z0-9_])([A-Za-z0-9_.-]*(?:pass|pwd|secret|token|credential)[A-Za-z0-9_.-]*|pw)[\"']?(\\s*[=:]\\s*)",
            Pattern.CASE_INSENSITIVE);
    private static final Pattern NEXT_PAIR = Pattern.compile("\\s+[A-Za-z_][A-Za-z0-9_]*\\s*=");

    private Secrets() {
    }

    /**
     * Redacts everything in a text that could be a password.
     *
     * @param text any text, may be null
     * @return the text with each such span replaced by {@link #MASK} ({@code ""} for null)
     */
    public static String redact(String text) {
        if (text == null) {
            return "";
        }
        return keyValues(userInfo(text));
    }

    private static String userInfo(String s) {
        StringBuilder out = new StringBuilder(s.length());
        int i = 0;
        int n = s.length();
        while (i < n) {
            if (Character.isWhitespace(s.charAt(i))) {
                out.append(s.charAt(i++));
                continue;
            }
            int end = i;
            while (end < n && !Character.isWhitespace(s.charAt(end))) {
                end++;
            }
            out.append(userInfoOfToken(s.substring(i, end)));
            i = end;
        }
        return out.toString();
    }

    /** One whitespace-free token: {@code [scheme:/+]user:password@rest} becomes {@code [scheme:/+]user:***@rest}. */
    private static String userInfoOfToken(String t) {
        int at = t.lastIndexOf('@');
        if (at < 0) {
            return t;
        }
        int start = 0;
        Matcher m = SCHEME.matcher(t);
        if (m.find() && m.start() < at) {
            start = m.end();
        }
        int colon = t.indexOf(':', start);
        if (colon < 0 || colon > at) {
            return t;
        }
        return t.substring(0, colon + 1) + MASK + t.substring(at);
    }

    private static String keyValues(String s) {
        StringBuilder out = new StringBuilder(s.length());
        Matcher m = KEY.matcher(s);
        int copied = 0;
        int from = 0;
        while (from < s.length() && m.find(from)) {
            String key = m.group(1).toLowerCase(Locale.ROOT);
            int valueStart = m.end();
            if (key.endsWith("file") || key.endsWith("_env") || key.endsWith("-env") || key.endsWith("path")
                    || valueStart >= s.length() || s.startsWith(MASK, valueStart) || s.startsWith("//", valueStart)) {
                from = m.end();
                continue;
            }
            int valueEnd = valueEnd(s, valueStart);
            if (valueEnd == valueStart) {
                from = m.end();
                continue;
            }
            char q = s.charAt(valueStart);
            boolean quoted = q == '\'' || q == '"';
            out.append(s, copied, valueStart);
            if (quoted) {
                out.append(q).append(MASK);
                if (valueEnd <= s.length() && valueEnd > valueStart + 1 && s.charAt(valueEnd - 1) == q) {
                    out.append(q);
                }
            } else {
                out.append(MASK);
            }
            copied = valueEnd;
            from = Math.max(valueEnd, m.end());
        }
        out.append(s, copied, s.length());
        return out.toString();
    }

    /** The end (exclusive) of the value starting at {@code i}: see the class comment. */
    private static int valueEnd(String s, int i) {
        int n = s.length();
        char q = s.charAt(i);
        if (q == '\'' || q == '"') {
            int j = i + 1;
            while (j < n) {
                char c = s.charAt(j);
                if (c == '\\' && j + 1 < n) {
                    j += 2;
                    continue;
                }
                if (c == q) {
                    return j + 1;
                }
                j++;
            }
            return n;
        }
        int amp = s.indexOf('&', i);
        Matcher next = NEXT_PAIR.matcher(s);
        int pair = next.find(i) ? next.start() : n;
        return Math.min(amp < 0 ? n : amp, pair);
    }
}
