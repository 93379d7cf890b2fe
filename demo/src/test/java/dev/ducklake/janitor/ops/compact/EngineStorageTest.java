package dev.ducklake.janitor.ops.compact;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.storage.FileStores;
import org.junit.jupiter.api.Test;

import java.net.URI;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What DuckDB gets for a data path (EngineStorage): nothing locally, httpfs and an s3 secret on S3, a refusal elsewhere. */
class EngineStorageTest {

    @Test
    void localPathsNeedNothing() throws Exception {
        for (String p : new String[] {null, "/lake/data/", "file:///lake/data/", "relative/dir/", "C:\\lake\\"}) {
            assertThat(EngineStorage.resolve(p, FileStores.Options.DEFAULT)).as(p).isEqualTo(EngineStorage.Access.LOCAL);
        }
    }

    @Test
    void anS3PathGetsHttpfsAndASecretFromTheSdkChain() throws Exception {
        String id = System.getProperty("aws.accessKeyId");
        String secret = System.getProperty("aws.secretAccessKey");
        System.setProperty("aws.accessKeyId", "AKIA-test-engine");
        System.setProperty("aws.secretAccessKey", "engine-secret-value");
        try {
            EngineStorage.Access a = EngineStorage.resolve("s3a://bucket/lake/",
                    new FileStores.Options("eu-west-3", URI.create("http://minio.local:9000"), true));
            assertThat(a.needsHttpfs()).isTrue();
            assertThat(a.secretSql()).isEqualTo("CREATE TEMPORARY SECRET (TYPE s3, KEY_ID 'AKIA-test-engine', SECRET "
                    + "'engine-secret-value', REGION 'eu-west-3', ENDPOINT 'minio.local:9000', USE_SSL false, URL_STYLE 'path')");
            assertThat(a.secrets()).containsExactly("engine-secret-value");
            EngineStorage.Access aws = EngineStorage.resolve("s3://bucket/lake/", new FileStores.Options("us-east-2", null, false));
            assertThat(aws.secretSql()).doesNotContain("ENDPOINT").doesNotContain("USE_SSL").endsWith("URL_STYLE 'vhost')");
            assertThat(EngineStorage.resolve("s3://b/", new FileStores.Options("us-east-1", URI.create("https://s3.example"), false))
                    .secretSql()).contains("ENDPOINT 's3.example', USE_SSL true");
        } finally {
            restore("aws.accessKeyId", id);
            restore("aws.secretAccessKey", secret);
        }
    }

    @Test
    void anotherRemoteSchemeIsRefused() {
        assertThatThrownBy(() -> EngineStorage.resolve("gs://bucket/lake/", FileStores.Options.DEFAULT))
                .isInstanceOfSatisfying(JanitorException.class, e -> {
                    assertThat(e.reason()).isEqualTo(JanitorException.Reason.STORAGE);
                    assertThat(e.getMessage()).contains("'gs://'").contains("Nothing was changed");
                });
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }
}
