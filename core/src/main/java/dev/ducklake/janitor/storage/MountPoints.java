package dev.ducklake.janitor.storage;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The mount points that lie strictly below a local data path, read from the kernel's table of this process's mounts
 * ({@code /proc/self/mountinfo}, Linux; none elsewhere). A folder below such a mount point is another file system or a
 * bind mount of another directory (another tenant's volume mounted into this lake's tree): neither a symbolic-link
 * check nor opening names without following links sees it, since a mount point is an ordinary directory by name. The
 * confined local store refuses to delete there ({@link LocalFileStore}).
 *
 * <p>Read after each folder is opened for deletes, not before: a mount made before the open is in the table then, and
 * one made after it cannot change what the open handle holds. A mount table that cannot be read gives no mount points.
 */
final class MountPoints {

    /** The kernel's table of this process's mounts (field 5 of each line is the mount point, octal-escaped). */
    static final Path MOUNTINFO = Paths.get("/proc/self/mountinfo");

    private MountPoints() {
    }

    /** Reads {@link #MOUNTINFO}: its lines, or none when it does not exist or cannot be read. */
    static Supplier<List<String>> system() {
        return () -> {
            try {
                // decoded leniently: a mount point not in UTF-8 must not make the whole table unreadable
                return Files.exists(MOUNTINFO)
                        ? new String(Files.readAllBytes(MOUNTINFO), StandardCharsets.UTF_8).lines().toList() : List.of();
            } catch (IOException | RuntimeException e) {
                return List.of();
            }
        };
    }

    /**
     * The mount points strictly below a root, as paths relative to it.
     *
     * @param mountinfo the lines of a {@code mountinfo} table
     * @param root the data path (absolute, normalised), as given
     * @param realRoot its real path (the table names real paths), or null when it cannot be resolved
     * @return each mount point below {@code root} or {@code realRoot} (not the root itself), relative to it; empty when
     *     none
     */
    static List<Path> below(List<String> mountinfo, Path root, Path realRoot) {
        List<Path> out = new ArrayList<>();
        for (String line : mountinfo) {
            String[] f = line.split(" ");
            if (f.length < 5) {
                continue;
            }
            Path m;
            try {
                m = Paths.get(unescape(f[4])).normalize();
            } catch (RuntimeException e) {
                continue;
            }
            for (Path r : realRoot == null ? List.of(root) : List.of(root, realRoot)) {
                if (m.startsWith(r) && !m.equals(r)) {
                    Path rel = r.relativize(m);
                    if (!out.contains(rel)) {
                        out.add(rel);
                    }
                }
            }
        }
        return out;
    }

    /**
     * The mount point (relative to the root) a folder lies on or below, or null.
     *
     * @param relativeFolder the folder relative to the root
     * @param mounts the mount points of {@link #below}
     */
    static Path containing(Path relativeFolder, List<Path> mounts) {
        for (Path m : mounts) {
            if (relativeFolder.startsWith(m)) {
                return m;
            }
        }
        return null;
    }

    /** Undoes the table's escapes: {@code \040} (space), {@code \011} (tab), {@code \012} (newline), {@code \134}. */
    static String unescape(String field) {
        if (field.indexOf('\\') < 0) {
            return field;
        }
        StringBuilder b = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && isOctal(field, i + 1)) {
                b.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static boolean isOctal(String s, int from) {
        if (from + 3 > s.length()) {
            return false;
        }
        for (int i = from; i < from + 3; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '7') {
                return false;
            }
        }
        return true;
    }
}
