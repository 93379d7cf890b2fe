package dev.ducklake.janitor.ops.deleteorphanfiles;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The candidate spill files of delete-orphan-files in the temporary directory, named per run so that a run killed
 * with SIGKILL (which runs no {@code finally}) leaves a file that a later run can recognise and remove:
 * {@code ducklake-janitor-spill_<host>_<pid>_<process start, epoch ms>_<random>.bin}.
 *
 * <p>At start a run removes the spill files of earlier runs that are certainly gone, and only files of this exact
 * prefix: a file of this host whose pid is not alive, or is alive but started at another time (the pid was reused);
 * a file of another host (a shared temporary directory) or of the older name {@code ducklake-janitor-orphans*.bin}
 * (no pid) only once it is older than {@link #SAFE_AGE}. A file that cannot be removed is left alone.
 */
final class SpillFiles {

    /** The name prefix of every spill file. */
    static final String PREFIX = "ducklake-janitor-spill_";
    /** The name prefix of spill files written before they were named per run. */
    static final String OLD_PREFIX = "ducklake-janitor-orphans";
    /** Spill files whose owner cannot be checked are removed only when last modified longer ago than this. */
    static final Duration SAFE_AGE = Duration.ofDays(7);

    private static final Pattern NAME = Pattern.compile(Pattern.quote(PREFIX) + "([A-Za-z0-9.-]{0,64})_(\\d{1,19})_(\\d{1,19})_\\d*\\.bin");

    /** How one process is seen: empty when no process has the pid, else its start time (empty when unknown). */
    interface Processes extends LongFunction<Optional<Optional<Instant>>> {
    }

    /** The processes of this host, as {@link ProcessHandle} sees them. */
    static final Processes LIVE = pid -> ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
            .map(h -> h.info().startInstant());

    private final Path dir;
    private final String host;
    private final long pid;
    private final Instant started;
    private final Processes processes;

    /**
     * @param dir the temporary directory
     * @param host this host's name (sanitised to {@code [A-Za-z0-9.-]}, at most 64 characters)
     * @param pid this process's pid
     * @param started this process's start time
     * @param processes how other pids are checked
     */
    SpillFiles(Path dir, String host, long pid, Instant started, Processes processes) {
        this.dir = dir;
        this.host = sanitise(host);
        this.pid = pid;
        this.started = Instant.ofEpochMilli(started.toEpochMilli());
        this.processes = processes;
    }

    /** @return the spill files of this process in {@code java.io.tmpdir} */
    static SpillFiles ofThisProcess() {
        ProcessHandle me = ProcessHandle.current();
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            // no name lookup (it can wait on DNS): the kernel's host name where there is one
            try {
                host = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
            } catch (IOException | RuntimeException e) {
                host = "";
            }
        }
        return new SpillFiles(Path.of(System.getProperty("java.io.tmpdir")), host, me.pid(),
                me.info().startInstant().orElse(Instant.now()), LIVE);
    }

    private static String sanitise(String host) {
        String h = host == null ? "" : host.replaceAll("[^A-Za-z0-9.-]", "");
        return h.length() > 64 ? h.substring(0, 64) : h;
    }

    /**
     * Creates this run's spill file (owner-only permissions where the file system has them).
     *
     * @return its path
     * @throws IOException when it cannot be created
     */
    Path create() throws IOException {
        return Files.createTempFile(dir, PREFIX + host + "_" + pid + "_" + started.toEpochMilli() + "_", ".bin");
    }

    /**
     * Removes the spill files of earlier runs that are gone (see the class comment).
     *
     * @param log told one line per file removed
     * @return the files removed
     */
    List<Path> removeStale(Consumer<String> log) {
        List<Path> removed = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "ducklake-janitor-*.bin")) {
            for (Path p : ds) {
                String why = staleBecause(p);
                if (why != null && Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    try {
                        Files.delete(p);
                        removed.add(p);
                        log.accept("removed the spill file " + p + " of an earlier run (" + why + ")");
                    } catch (IOException e) {
                        // another user's file, or gone already: left alone
                    }
                }
            }
        } catch (IOException | java.nio.file.DirectoryIteratorException e) {
            // an unreadable temporary directory: nothing to clean
        }
        return removed;
    }

    /** @return why the file belongs to a run that is gone, or null when it may still be in use (or is not ours) */
    String staleBecause(Path file) {
        String name = file.getFileName().toString();
        Matcher m = NAME.matcher(name);
        if (m.matches()) {
            long owner;
            long ownerStart;
            try {
                owner = Long.parseLong(m.group(2));
                ownerStart = Long.parseLong(m.group(3));
            } catch (NumberFormatException e) {
                return null;
            }
            if (m.group(1).equals(host)) {
                if (owner == pid && ownerStart == started.toEpochMilli()) {
                    return null; // this very run's
                }
                Optional<Optional<Instant>> p = processes.apply(owner);
                if (p.isEmpty()) {
                    return "process " + owner + " is gone";
                }
                if (p.get().isPresent() && Math.abs(p.get().get().toEpochMilli() - ownerStart) > 1000) {
                    return String.format(Locale.ROOT, "pid %d now belongs to a process started at %s", owner, p.get().get());
                }
                return null;
            }
            return olderThanSafeAge(file, "of host " + m.group(1));
        }
        if (name.startsWith(OLD_PREFIX) && name.endsWith(".bin")) {
            return olderThanSafeAge(file, "unnamed owner");
        }
        return null;
    }

    private static String olderThanSafeAge(Path file, String owner) {
        try {
            FileTime t = Files.getLastModifiedTime(file, java.nio.file.LinkOption.NOFOLLOW_LINKS);
            if (t.toInstant().isBefore(Instant.now().minus(SAFE_AGE))) {
                return owner + ", last modified " + t.toInstant() + ", more than " + SAFE_AGE.toDays() + " days ago";
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }
}
