package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import dev.ducklake.janitor.storage.FileStores;
import dev.ducklake.janitor.storage.S3FileStore;
import dev.ducklake.janitor.storage.StorageException;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How DuckDB reaches the catalog's data path: local files need nothing; an S3 data path ({@code s3://}, {@code s3a://},
 * {@code s3n://}) needs DuckDB's {@code httpfs} extension and a temporary DuckDB secret of type {@code s3} holding the
 * credentials the janitor's own S3 store uses (the AWS SDK's default provider chain, resolved once in Java, so that both
 * halves of the janitor read the same credentials and DuckDB needs no {@code aws} extension), with the region, endpoint
 * and addressing style of the {@code --s3-*} flags. Any other remote scheme is refused: DuckLake could write there, but
 * the janitor has no proven way to give DuckDB its credentials.
 *
 * <p>Temporary credentials (web identity, an assumed role) are resolved when the engine starts; a run longer than their
 * lifetime (usually one hour) fails its next call with an S3 error and is simply run again.
 */
final class EngineStorage {

    private EngineStorage() {
    }

    /**
     * DuckDB's access to one data path.
     *
     * @param needsHttpfs whether {@code httpfs} must be loaded
     * @param secretSql the {@code CREATE TEMPORARY SECRET} statement, or null for none
     * @param secrets the values that must never be printed (secret key, session token)
     */
    record Access(boolean needsHttpfs, String secretSql, List<String> secrets) {
        static final Access LOCAL = new Access(false, null, List.of());
    }

    /**
     * Whether a data path is on S3.
     *
     * @param dataPath the catalog's data path, or null
     * @return true for {@code s3://}, {@code s3a://}, {@code s3n://}
     */
    static boolean isS3(String dataPath) {
        String scheme = scheme(dataPath);
        return scheme != null && (scheme.equals("s3") || scheme.equals("s3a") || scheme.equals("s3n"));
    }

    /**
     * What DuckDB needs for a data path, resolving the S3 credentials when it is on S3.
     *
     * @param dataPath the catalog's data path ({@code ducklake_metadata}), or null
     * @param s3 the {@code --s3-*} flags
     * @return the access
     * @throws JanitorException STORAGE when the data path is on S3 and no credentials resolve, or on a remote scheme the
     *     engine cannot reach (both before DuckDB starts: nothing changed)
     */
    static Access resolve(String dataPath, FileStores.Options s3) throws JanitorException {
        String scheme = scheme(dataPath);
        if (scheme == null || scheme.equals("file")) {
            return Access.LOCAL;
        }
        if (!isS3(dataPath)) {
            throw new JanitorException(Reason.STORAGE, "The catalog's data path is on '" + scheme + "://', which the engine of "
                    + "flush-inlined-data and compact cannot reach yet (supported: local paths, file://, s3://, s3a://)."
                    + " Nothing was changed.");
        }
        S3FileStore.Credentials c;
        try {
            c = S3FileStore.resolveCredentials();
        } catch (StorageException e) {
            throw new JanitorException(Reason.STORAGE, "The catalog's data path " + dataPath + " is on S3, and DuckDB needs "
                    + "credentials to write there: " + e.getMessage(), e);
        }
        List<String> parts = new ArrayList<>();
        List<String> secrets = new ArrayList<>();
        parts.add("TYPE s3");
        parts.add("KEY_ID " + DuckLakeCalls.literal(c.keyId()));
        parts.add("SECRET " + DuckLakeCalls.literal(c.secret()));
        secrets.add(c.secret());
        if (c.sessionToken() != null && !c.sessionToken().isEmpty()) {
            parts.add("SESSION_TOKEN " + DuckLakeCalls.literal(c.sessionToken()));
            secrets.add(c.sessionToken());
        }
        parts.add("REGION " + DuckLakeCalls.literal(S3FileStore.resolveRegion(s3.s3Region())));
        URI endpoint = s3.s3Endpoint();
        if (endpoint != null) {
            // DuckDB wants host[:port] and USE_SSL apart
            String host = endpoint.getHost() + (endpoint.getPort() > 0 ? ":" + endpoint.getPort() : "");
            parts.add("ENDPOINT " + DuckLakeCalls.literal(host));
            parts.add("USE_SSL " + !"http".equalsIgnoreCase(endpoint.getScheme()));
        }
        parts.add("URL_STYLE " + DuckLakeCalls.literal(s3.s3PathStyle() ? "path" : "vhost"));
        return new Access(true, "CREATE TEMPORARY SECRET (" + String.join(", ", parts) + ")", List.copyOf(secrets));
    }

    private static String scheme(String dataPath) {
        if (dataPath == null) {
            return null;
        }
        int i = dataPath.indexOf("://");
        if (i <= 0 || !dataPath.substring(0, i).matches("[A-Za-z][A-Za-z0-9+.-]*")) {
            return null;
        }
        return dataPath.substring(0, i).toLowerCase(Locale.ROOT);
    }
}
