package dev.ducklake.janitor.ops.deleteorphanfiles;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.catalog.CatalogInspector;
import dev.ducklake.janitor.storage.FileStore;
import dev.ducklake.janitor.storage.StorageException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Where an inventory ({@code --inventory}) and the listing files of its manifest are read from: a local file, its
 * listing files looked up beside it; or an S3 object, read through the run's S3 store (the client, credentials,
 * endpoint and path style of the data path's store: one setup), its listing files fetched by their {@code key} from
 * the manifest's {@code destinationBucket}.
 */
abstract class InventoryOrigin {

    /** A listing file opened: its name for messages and its raw bytes, streamed. */
    record Opened(String name, InputStream in) {
    }

    /** @return the inventory as given, for messages */
    abstract String name();

    /** @return the inventory's raw bytes (a plain list or a manifest) */
    abstract InputStream open() throws JanitorException;

    /**
     * @param key a {@code files[].key} of the manifest
     * @param manifest the manifest
     * @return the listing file
     * @throws JanitorException USAGE when it is not there (nothing deleted yet), STORAGE when the store fails
     */
    abstract Opened listing(String key, JsonNode manifest) throws JanitorException;

    /** Whether an inventory location is an S3 object ({@code s3://} or {@code s3a://}). */
    static boolean isS3(String inventory) {
        String l = inventory.toLowerCase(Locale.ROOT);
        return l.startsWith("s3://") || l.startsWith("s3a://");
    }

    /** A local file. */
    static InventoryOrigin local(Path file) {
        return new InventoryOrigin() {
            @Override
            String name() {
                return file.toString();
            }

            @Override
            InputStream open() throws JanitorException {
                try {
                    return Files.newInputStream(file);
                } catch (IOException e) {
                    throw new JanitorException(Reason.USAGE, "--inventory " + file + " is not a readable file: " + e.getMessage(), e);
                }
            }

            @Override
            Opened listing(String key, JsonNode manifest) throws JanitorException {
                Path p = locate(file, key);
                try {
                    return new Opened(p.toString(), Files.newInputStream(p));
                } catch (IOException e) {
                    throw new JanitorException(Reason.USAGE, "The inventory listing file " + p + " could not be read: "
                            + e.getMessage() + ". Nothing was deleted.", e);
                }
            }
        };
    }

    /**
     * An S3 object, read through the store.
     *
     * @param address {@code s3://bucket/key} (or {@code s3a://})
     * @param store the run's store (an {@link dev.ducklake.janitor.storage.S3FileStore})
     */
    static InventoryOrigin s3(String address, FileStore store) {
        String canonical = "s3://" + address.substring(address.indexOf("://") + 3);
        String manifestBucket = canonical.substring(5).split("/", 2)[0];
        return new InventoryOrigin() {
            @Override
            String name() {
                return address;
            }

            @Override
            InputStream open() throws JanitorException {
                return read(canonical, "The inventory " + CatalogInspector.printable(address) + " is not in the store");
            }

            @Override
            Opened listing(String key, JsonNode manifest) throws JanitorException {
                String bucket = manifest.path("destinationBucket").asText("");
                // an ARN (arn:aws:s3:::bucket) as S3 Inventory writes it; a manifest without one lies in its destination bucket
                bucket = bucket.startsWith("arn:") ? bucket.substring(bucket.lastIndexOf(':') + 1) : bucket;
                if (bucket.isEmpty()) {
                    bucket = manifestBucket;
                }
                String a = "s3://" + bucket + "/" + key;
                return new Opened(a, read(a, "The inventory listing file " + CatalogInspector.printable(a) + " named by "
                        + CatalogInspector.printable(address) + " is not in the store (removed by a lifecycle rule, or an"
                        + " incomplete copy of the inventory?)"));
            }

            private InputStream read(String a, String missing) throws JanitorException {
                try {
                    return store.read(a);
                } catch (StorageException e) {
                    if (e.kind() == StorageException.Kind.NOT_FOUND) {
                        throw new JanitorException(Reason.USAGE, missing + ". Nothing was deleted.", e);
                    }
                    throw new JanitorException(Reason.STORAGE, "Reading the inventory " + CatalogInspector.printable(a)
                            + " failed (" + e.kind() + "): " + e.getMessage() + ". Nothing was deleted.", e);
                }
            }
        };
    }

    /** A manifest's listing file on the local file system. */
    private static Path locate(Path manifest, String key) throws JanitorException {
        if (key.isEmpty() || key.contains("..")) {
            throw new JanitorException(Reason.USAGE, "The inventory manifest " + manifest + " names a listing file "
                    + CatalogInspector.printable(key) + " that cannot be looked up.");
        }
        Path dir = manifest.toAbsolutePath().getParent();
        for (Path d = dir; d != null; d = d.getParent()) {
            Path p = d.resolve(key);
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        String name = key.substring(key.lastIndexOf('/') + 1);
        for (Path p : new Path[] {dir.resolveSibling("data").resolve(name), dir.resolve("data").resolve(name), dir.resolve(name)}) {
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        throw new JanitorException(Reason.USAGE, "The inventory listing file " + CatalogInspector.printable(key) + " named by "
                + manifest + " was found neither under the manifest's folder or its parents nor in data/ beside it. Copy the"
                + " inventory with its data/ folder. Nothing was deleted.");
    }
}
