package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.storage.FileStore;

import java.util.HashMap;
import java.util.Map;

/**
 * What a dry run asks of each file it would delete: whether the store's delete would refuse it without trying
 * ({@link FileStore#refusal}: outside the data path, through a link or on a mount below it). The answer depends on
 * the file's folder only, so it is asked once per folder (the text before an address's last {@code /}); then, per
 * file, whether the delete would fail on what the address names ({@link FileStore#objectRefusal}: a folder in the
 * file's place). Not thread-safe; one per dry run.
 */
public final class FolderRefusals {

    private final FileStore store;
    /** Folder → reason, or "" when not refused. */
    private final Map<String, String> byFolder = new HashMap<>();

    /** @param store the store the execute run would delete from */
    public FolderRefusals(FileStore store) {
        this.store = store;
    }

    /**
     * @param address a file address as the store's delete takes it
     * @return why its delete would be refused, or null when it would be tried
     */
    public String of(String address) {
        int slash = address.lastIndexOf('/');
        String why = byFolder.computeIfAbsent(slash < 0 ? "" : address.substring(0, slash), folder -> {
            String r = store.refusal(address);
            return r == null ? "" : r;
        });
        return why.isEmpty() ? store.objectRefusal(address) : why;
    }
}
