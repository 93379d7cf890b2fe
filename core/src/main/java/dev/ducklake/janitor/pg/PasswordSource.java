package dev.ducklake.janitor.pg;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.SQLException;

/**
 * Where the catalog password comes from, resolved at each connect: a password file is re-read on every (re)connect,
 * so a rotated Kubernetes Secret (mounted as a file) is picked up by {@code serve} and by a run that reconnects,
 * without a restart.
 *
 * <p>Precedence (explicit beats ambient): the password in the connection string, then {@code --password-file} (or a
 * configuration's {@code password_file}), then an inherited {@code PGPASSWORD}; with none of them the driver consults
 * {@code ~/.pgpass} / {@code PGPASSFILE}. {@link #describe()} names the source for login-failure messages; nothing
 * here ever returns the password in a message.
 */
public final class PasswordSource {

    /** The kinds of source, in precedence order. */
    public enum Kind {
        /** The password in the connection string. */
        CONNECTION_STRING,
        /** The first line of a file, re-read at each connect. */
        PASSWORD_FILE,
        /** The inherited PGPASSWORD environment variable. */
        PGPASSWORD,
        /** No password given (the driver may still use ~/.pgpass). */
        NONE
    }

    private final Kind kind;
    private final String fixed;
    private final Path file;
    /** The last value read from the file (for redaction only). */
    private volatile String lastRead;
    /** For {@link Kind#NONE}: the libpq password file pgJDBC would read ({@link PassFile#locate}), or null. */
    private volatile Path passFile;
    /** Why {@link #passFile} is ignored ({@link PassFile#problem}), as last checked; null when it is not. */
    private volatile String passFileProblem;
    /** The environment variable a {@link Kind#PGPASSWORD} password came from, as the operator named it. */
    private String variable = "PGPASSWORD";

    private PasswordSource(Kind kind, String fixed, Path file) {
        this.kind = kind;
        this.fixed = fixed;
        this.file = file;
    }

    /**
     * {@link #choose(String, Path, String)}, naming the variable the PGPASSWORD value was taken from (a configuration's
     * {@code password_env}) in {@link #describe()}.
     *
     * @param variable the variable's name, or null for PGPASSWORD itself
     */
    public static PasswordSource choose(String inString, Path passwordFile, String pgPassword, String variable)
            throws JanitorException {
        PasswordSource p = choose(inString, passwordFile, pgPassword);
        if (variable != null && !variable.isBlank()) {
            p.variable = variable;
        }
        return p;
    }

    /**
     * Chooses the source by precedence and checks that a password file is readable now.
     *
     * @param inString the password of the connection string, or null
     * @param passwordFile the password file, or null
     * @param pgPassword the value of PGPASSWORD, or null
     * @return the source
     * @throws JanitorException {@link Reason#USAGE} when the password file cannot be read or its first line is empty
     */
    public static PasswordSource choose(String inString, Path passwordFile, String pgPassword) throws JanitorException {
        if (inString != null) {
            return new PasswordSource(Kind.CONNECTION_STRING, inString, null);
        }
        if (passwordFile != null) {
            PasswordSource p = new PasswordSource(Kind.PASSWORD_FILE, null, passwordFile);
            try {
                p.lastRead = readFile(passwordFile);
            } catch (IOException e) {
                throw new JanitorException(Reason.USAGE, e.getMessage());
            }
            return p;
        }
        if (pgPassword != null && !pgPassword.isEmpty()) {
            return new PasswordSource(Kind.PGPASSWORD, pgPassword, null);
        }
        return new PasswordSource(Kind.NONE, null, null);
    }

    /**
     * For a source without a password: the libpq password file pgJDBC would read, checked now (and at every
     * {@link #resolve()}) as libpq checks it.
     *
     * @param file the file ({@link PassFile#locate}), or null
     * @return this source
     */
    PasswordSource passFile(Path file) {
        if (kind == Kind.NONE) {
            passFile = file;
            passFileProblem = PassFile.problem(file);
        }
        return this;
    }

    /** Whether the password file is ignored (as libpq ignores it): then no login may use it. */
    boolean passFileIgnored() {
        return passFileProblem != null;
    }

    /**
     * The warning for an ignored password file, naming it and the fix, or null when none is ignored.
     *
     * @return e.g. "the password file /home/j/.pgpass is ignored: it has group or world access (…); chmod 0600 /home/j/.pgpass"
     */
    public String passFileWarning() {
        String problem = passFileProblem;
        return problem == null ? null : "the password file " + passFile + " is ignored: " + problem + "; chmod 0600 " + passFile;
    }

    /** Which source this is. */
    public Kind kind() {
        return kind;
    }

    /**
     * The password now: a file is read again on every call.
     *
     * @return the password, or null for {@link Kind#NONE}
     * @throws SQLException (SQLSTATE 28000, with a message naming the file and what is wrong, never its content)
     *     when the password file cannot be read now or its first line is empty
     */
    public String resolve() throws SQLException {
        if (kind == Kind.NONE && passFile != null) {
            passFileProblem = PassFile.problem(passFile);
        }
        if (kind != Kind.PASSWORD_FILE) {
            return fixed;
        }
        try {
            String v = readFile(file);
            lastRead = v;
            return v;
        } catch (IOException e) {
            throw new SQLException(e.getMessage(), "28000");
        }
    }

    /** The password as last known, without reading a file (for redaction only); null for none. */
    String lastKnown() {
        return kind == Kind.PASSWORD_FILE ? lastRead : fixed;
    }

    /** Where the password came from, for messages: e.g. "password from --password-file /run/secrets/pg". */
    public String describe() {
        return switch (kind) {
            case CONNECTION_STRING -> "password from the connection string";
            case PASSWORD_FILE -> "password from the password file " + file;
            case PGPASSWORD -> "password from the " + variable + " environment variable";
            case NONE -> passFileProblem == null ? "no password given (~/.pgpass or PGPASSFILE consulted)"
                    : "no password given; " + passFileWarning();
        };
    }

    /**
     * Reads the first line of a password file (without its line end).
     *
     * @throws IOException with an operator's message (no Java class names) when unreadable or the first line is empty
     */
    static String readFile(Path file) throws IOException {
        String content;
        try {
            content = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new IOException("Cannot read the password file " + file + ": it does not exist. Check the path.");
        } catch (AccessDeniedException e) {
            throw new IOException("Cannot read the password file " + file + ": permission denied. Check its permissions.");
        } catch (IOException e) {
            String why = Files.isDirectory(file) ? "it is a directory" : "it is not readable as UTF-8 text";
            throw new IOException("Cannot read the password file " + file + ": " + why + ". Check the path.");
        }
        int nl = content.indexOf('\n');
        String line = nl >= 0 ? content.substring(0, nl) : content;
        if (line.endsWith("\r")) {
            line = line.substring(0, line.length() - 1);
        }
        if (line.isEmpty()) {
            throw new IOException("The password file " + file + ": its first line is empty (the password is the first line).");
        }
        return line;
    }
}
