package dev.ducklake.janitor.ops.files;

import java.util.Locale;

/**
 * The progress line of a long delete run, at most every {@link #EVERY_SECONDS} seconds (a line per batch or per file
 * would flood the log of a run over millions of files): what the command says so far, then files and bytes deleted
 * since the start with their rates ({@code 12000 files deleted, 3.4 MB, in 5.0 s: 2400 files/s, 0.7 MB/s}).
 */
public final class DeleteProgress {

    /** The least interval between two progress lines, seconds. */
    public static final int EVERY_SECONDS = 5;

    private final FileListener listener;
    private final long everyNanos;
    private final long start = System.nanoTime();
    private long last = start;
    private long files;
    private long bytes;

    /** @param listener where the lines go ({@link FileListener#progress}) */
    public DeleteProgress(FileListener listener) {
        this(listener, EVERY_SECONDS * 1_000_000_000L);
    }

    DeleteProgress(FileListener listener, long everyNanos) {
        this.listener = listener;
        this.everyNanos = everyNanos;
    }

    /**
     * Counts deleted files and, when the interval has passed, sends a line.
     *
     * @param deletedFiles files deleted since the last call
     * @param deletedBytes their bytes (sizes known only)
     * @param state what the command says about its run so far, first on the line (e.g. {@code batch 12: …})
     */
    public void add(long deletedFiles, long deletedBytes, String state) {
        files += deletedFiles;
        bytes += Math.max(0, deletedBytes);
        long now = System.nanoTime();
        if (now - last >= everyNanos) {
            last = now;
            listener.progress(state + "; " + rates(now));
        }
    }

    /** @return files and bytes so far with their rates since the start */
    String rates(long now) {
        double secs = Math.max(1e-9, (now - start) / 1e9);
        return String.format(Locale.ROOT, "%d files deleted, %s, in %.1f s: %.0f files/s, %s/s", files, size(bytes), secs,
                files / secs, size((long) (bytes / secs)));
    }

    private static String size(long b) {
        if (b < 1024 * 1024) {
            return b + " B";
        }
        if (b < 1024L * 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f MiB", b / 1048576.0);
        }
        return String.format(Locale.ROOT, "%.2f GiB", b / 1073741824.0);
    }
}
