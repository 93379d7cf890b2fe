package dev.ducklake.janitor.ops.deleteorphanfiles;

import dev.ducklake.janitor.ops.files.FileListener;
import dev.ducklake.janitor.ops.files.FolderRefusals;
import dev.ducklake.janitor.storage.FileStore;

import java.time.Instant;

/**
 * A dry run's file lines as the execute run would have them: a candidate the store's delete would refuse without
 * trying ({@link FileStore#refusal}: outside the data path, through a link or on a mount below it, as an inventory
 * entry can be; {@link FileStore#objectRefusal}: a folder, not a file) is listed as {@code would_fail} with the reason, not {@code would_delete}, and counted (JSON
 * {@code files_would_fail}, exit 13 as the execute run). One check per folder and one per file ({@link FolderRefusals}). Every other
 * event passes through.
 */
final class DryRunRefusals implements FileListener {

    private final FolderRefusals refusals;
    private final FileListener inner;
    private long refused;
    private long refusedBytes;

    /**
     * @param store the store the execute run would delete from
     * @param inner the listener the lines go to
     */
    DryRunRefusals(FileStore store, FileListener inner) {
        this.refusals = new FolderRefusals(store);
        this.inner = inner;
    }

    @Override
    public void file(String action, String address, long sizeBytes, Instant lastModified, String reason) {
        if ("would_delete".equals(action)) {
            String why = refusals.of(address);
            if (why != null) {
                refused++;
                refusedBytes += Math.max(0, sizeBytes);
                inner.file("would_fail", address, sizeBytes, lastModified, why);
                return;
            }
        }
        inner.file(action, address, sizeBytes, lastModified, reason);
    }

    @Override
    public void progress(String line) {
        inner.progress(line);
    }

    /** @return the candidates the execute run's delete would refuse */
    long refused() {
        return refused;
    }

    /** @return their bytes, where known */
    long refusedBytes() {
        return refusedBytes;
    }
}
