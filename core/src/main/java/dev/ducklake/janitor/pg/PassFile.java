package dev.ducklake.janitor.pg;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Map;
import java.util.Set;

/**
 * The libpq password file ({@code PGPASSFILE}, else {@code ~/.pgpass}) that pgJDBC reads when no password is given,
 * checked as libpq checks it (libpq manual, "The Password File"): on Unix a file readable or writable by group or
 * others is ignored, with a warning, and so is anything that is not a plain file. pgJDBC itself reads it whatever its
 * mode; {@link IgnoredPassFile} keeps it from doing so.
 */
final class PassFile {

    private PassFile() {
    }

    /**
     * The file pgJDBC would read: the system property {@code org.postgresql.pgpassfile}, else {@code PGPASSFILE}, else
     * {@code .pgpass} in the home directory.
     *
     * @param env the environment
     * @return the path (it may not exist)
     */
    static Path locate(Map<String, String> env) {
        String property = System.getProperty("org.postgresql.pgpassfile");
        if (property != null && !property.isBlank()) {
            return Path.of(property.strip());
        }
        String variable = env.get("PGPASSFILE");
        if (variable != null && !variable.isBlank()) {
            return Path.of(variable.strip());
        }
        String home = env.getOrDefault("HOME", System.getProperty("user.home", ""));
        return Path.of(home.isEmpty() ? System.getProperty("user.home", ".") : home, ".pgpass");
    }

    /**
     * Why libpq would ignore the file, or null when it would read it (or it does not exist, or the file system has no
     * POSIX permissions: libpq does not check them on Windows either).
     *
     * @param file the password file
     * @return e.g. "it has group or world access (mode 0644)", or null
     */
    static String problem(Path file) {
        if (file == null || !Files.exists(file)) {
            return null;
        }
        if (!Files.isRegularFile(file)) {
            return "it is not a plain file";
        }
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file, new LinkOption[0]);
            int mode = 0;
            for (PosixFilePermission p : perms) {
                mode |= 1 << (8 - p.ordinal());
            }
            if ((mode & 077) != 0) {
                return "it has group or world access (mode " + String.format("%04o", mode) + "; libpq ignores such a file too)";
            }
            return null;
        } catch (UnsupportedOperationException | IOException e) {
            return null;
        }
    }
}
