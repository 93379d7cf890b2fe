package dev.ducklake.janitor.ops.check;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.pg.Sql;
import dev.ducklake.janitor.testsupport.Catalogs;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.S3TestServer;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 21 item 6, {@code check --storage}: retained file rows whose object was deleted out of band, and objects whose
 * size differs from file_size_bytes, are damage findings naming table, file and snapshot range; rows no retained snapshot
 * reaches are not; the catalog is never changed. Local storage and S3 (S3Proxy in-process).
 */
class StorageCheckTest {

    private static final Duration OLD = Duration.ofDays(3);

    @TempDir
    Path dir;

    /** Sets file_size_bytes of the data file rows named {@code name} (table 1). */
    private static void size(FileCatalog cat, String name, long bytes) throws Exception {
        try (Connection c = TestPostgres.get().connect()) {
            Catalogs.exec(c, "UPDATE " + Sql.qualified(cat.schema, "ducklake_data_file") + " SET file_size_bytes = " + bytes
                    + " WHERE path = '" + name + "'");
        }
    }

    /** An ended data file row whose range [1, 1) holds no snapshot: no reader reaches it. */
    private static void unreachableRow(FileCatalog cat, String name) throws Exception {
        long id = cat.dataFile(1, name, true);
        try (Connection c = TestPostgres.get().connect()) {
            Catalogs.exec(c, "UPDATE " + Sql.qualified(cat.schema, "ducklake_data_file") + " SET end_snapshot = 1"
                    + " WHERE data_file_id = " + id);
        }
    }

    private static void assertFindings(CliRun r, String sizeText) {
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(12);
        JsonNode doc = r.json();
        List<String> kinds = new ArrayList<>();
        for (JsonNode f : doc.get("findings")) {
            kinds.add(f.get("kind").asText());
            if (f.get("kind").asText().equals("missing_data_files")) {
                assertThat(f.get("count").asLong()).isEqualTo(1);
                assertThat(f.get("severity").asText()).isEqualTo("damage");
                assertThat(f.get("examples").get(0).asText()).contains("table 1 (").contains("data file")
                        .contains("gone.parquet").contains("snapshots [1, live)");
                assertThat(f.get("fix").asText()).contains("versioned bucket").contains("backup")
                        .contains("never deletes catalog rows");
            }
            if (f.get("kind").asText().equals("missing_delete_files")) {
                assertThat(f.get("count").asLong()).isEqualTo(1);
                assertThat(f.get("examples").get(0).asText()).contains("delete file").contains("gone-delete.puffin");
            }
            if (f.get("kind").asText().equals("size_mismatch_files")) {
                assertThat(f.get("count").asLong()).isEqualTo(1);
                assertThat(f.get("examples").get(0).asText()).contains("k1.parquet").contains(sizeText);
            }
        }
        assertThat(kinds).contains("missing_data_files", "missing_delete_files", "size_mismatch_files");
        assertThat(doc.get("counts").get("missing_data_files").asLong()).isEqualTo(1);
        assertThat(doc.get("storage").get("expected").asLong()).as(doc.toString()).isEqualTo(6);
        assertThat(doc.get("storage").get("not_checked").asLong()).as("the row outside the data path").isEqualTo(1);
    }

    @Test
    void objectsDeletedOutOfBandAndResizedOnesAreReportedLocally() throws Exception {
        Path lake = dir.resolve("lake");
        FileCatalog cat = FileCatalog.create("chk_storage", lake + "/");
        for (int i = 0; i < 3; i++) {
            FileCatalog.file(lake.resolve("main/test/k" + i + ".parquet"), OLD);
            cat.dataFile(1, "k" + i + ".parquet", true);
        }
        size(cat, "k0.parquet", 7);
        size(cat, "k1.parquet", 99);
        cat.dataFile(1, "gone.parquet", true);
        cat.deleteFile(1, "gone-delete.puffin", true);
        FileCatalog.file(lake.resolve("main/test/live-delete.puffin"), OLD);
        cat.deleteFile(1, "live-delete.puffin", true);
        unreachableRow(cat, "expired.parquet");
        cat.dataFile(1, dir.resolve("elsewhere/x.parquet").toString(), false);

        String url = TestPostgres.get().url();
        CliRun plain = CliRun.run("check", "--catalog", url, "--metadata-schema", cat.schema, "--output", "json");
        assertThat(plain.json().get("counts").has("missing_data_files")).as("without --storage only the catalog is read").isFalse();
        assertThat(plain.json().has("storage")).isFalse();

        CliRun r = CliRun.run("check", "--catalog", url, "--metadata-schema", cat.schema, "--storage", "--output", "json");
        assertFindings(r, "object 7 bytes, file_size_bytes 99");
        CliRun text = CliRun.run("check", "--catalog", url, "--metadata-schema", cat.schema, "--storage");
        assertThat(text.out()).contains("missing_data_files (damage): 1").contains("fix:")
                .doesNotContain("expired.parquet");

        // maintain's check step takes the same flag
        Path cfg = dir.resolve("maintain.yaml");
        Files.writeString(cfg, "catalogs:\n  - name: lake\n    connection: \"" + url + "\"\n    metadata_schema: " + cat.schema
                + "\nmaintain:\n  - check: {storage: true}\n");
        CliRun step = CliRun.run("maintain", "--config", cfg.toString(), "--output", "json");
        assertThat(step.exitCode()).as(step.toString()).isEqualTo(12);
        JsonNode checkStep = step.json().get("catalogs").get(0).get("steps").get(0);
        assertThat(checkStep.get("result").get("counts").get("missing_delete_files").asLong()).as(checkStep.toString()).isEqualTo(1);

        CliRun misuse = CliRun.run("check", "--catalog", url, "--metadata-schema", cat.schema, "--data-path", lake.toString());
        assertThat(misuse.exitCode()).isEqualTo(2);
        assertThat(Files.exists(lake.resolve("main/test/k0.parquet"))).isTrue();
        try (Connection c = TestPostgres.get().connect()) {
            assertThat(Catalogs.scalar(c, "SELECT count(*) FROM " + Sql.qualified(cat.schema, "ducklake_data_file")
                    + " WHERE path = 'gone.parquet'")).as("the catalog is never changed").isEqualTo(1);
        }
    }

    @Test
    void objectsDeletedOutOfBandAreReportedOnS3() throws Exception {
        try (S3TestServer s3 = new S3TestServer()) {
            s3.createBucket("chk");
            FileCatalog cat = FileCatalog.create("chk_s3", "s3://chk/lake/");
            for (int i = 0; i < 3; i++) {
                s3.put("chk", "lake/main/test/k" + i + ".parquet", 10);
                cat.dataFile(1, "k" + i + ".parquet", true);
            }
            size(cat, "k0.parquet", 10);
            size(cat, "k1.parquet", 11);
            s3.put("chk", "lake/main/test/gone.parquet", 10);
            cat.dataFile(1, "gone.parquet", true);
            cat.deleteFile(1, "gone-delete.puffin", true);
            s3.put("chk", "lake/main/test/live-delete.puffin", 10);
            cat.deleteFile(1, "live-delete.puffin", true);
            unreachableRow(cat, "expired.parquet");
            cat.dataFile(1, "s3://other-bucket/x.parquet", false);
            String[] args = {"check", "--catalog", TestPostgres.get().url(), "--metadata-schema", cat.schema, "--storage",
                "--s3-endpoint", s3.endpoint().toString(), "--s3-path-style", "--s3-region", "us-east-1", "--output", "json"};
            CliRun before = CliRun.run(args);
            assertThat(before.json().get("counts").get("missing_data_files").asLong()).as(before.toString()).isZero();
            s3.blobs().removeBlob("chk", "lake/main/test/gone.parquet"); // out of band
            assertFindings(CliRun.run(args), "object 10 bytes, file_size_bytes 11");
        }
    }
}
