package dev.ducklake.janitor.maintain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.FileCatalog;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code check} with {@code storage: true} on an S3 data path without AWS credentials: in {@code maintain} its storage
 * part is not possible for the reason the storage steps of the same run are skipped for (no credentials), so the catalog
 * rules still run and the storage comparison is reported as not checked with that reason, not as a failure; a
 * {@code required} one fails with the storage exit code. On the command line, {@code check --storage} fails naming what is
 * missing and what to set (not "access denied").
 */
class CheckStorageWithoutCredentialsTest {

    private static String imds;

    @TempDir
    Path tmp;

    @BeforeAll
    static void noInstanceMetadata() {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("AWS_ACCESS_KEY_ID") == null && System.getenv("AWS_PROFILE") == null
                && System.getenv("AWS_WEB_IDENTITY_TOKEN_FILE") == null, "no AWS credentials in the environment");
        imds = System.getProperty("aws.disableEc2Metadata");
        System.setProperty("aws.disableEc2Metadata", "true");
    }

    @AfterAll
    static void restore() {
        if (imds == null) {
            System.clearProperty("aws.disableEc2Metadata");
        } else {
            System.setProperty("aws.disableEc2Metadata", imds);
        }
    }

    private Path config(String schema, String steps) throws Exception {
        Path f = tmp.resolve("maintain-" + System.nanoTime() + ".yaml");
        Files.writeString(f, "catalogs:\n  - name: s3lake\n    connection: " + TestPostgres.get().url() + "\n    metadata_schema: "
                + schema + "\nmaintain:\n" + steps);
        return f;
    }

    private static FileCatalog s3Catalog() throws Exception {
        FileCatalog cat = FileCatalog.create("chk_nocred", "s3://no-such-bucket/tenant/");
        cat.queue("main/t/x.parquet", true, Duration.ofDays(3));
        return cat;
    }

    @Test
    void inMaintainTheStoragePartIsNotCheckedForTheReasonTheStorageStepsAreSkipped() throws Exception {
        FileCatalog cat = s3Catalog();
        Path cfg = config(cat.schema, "  - cleanup-old-files: {older-than: 2d, s3-endpoint: \"http://127.0.0.1:1\"}\n"
                + "  - check: {storage: true, s3-endpoint: \"http://127.0.0.1:1\"}\n");

        CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");

        assertThat(run.exitCode()).as(run.all()).isZero();
        JsonNode steps = run.json().get("catalogs").get(0).get("steps");
        JsonNode cleanup = steps.get(0);
        assertThat(cleanup.get("status").asText()).as(run.all()).isEqualTo("skipped");
        String why = cleanup.get("message").asText();
        assertThat(why).contains("no AWS credentials").contains("s3://no-such-bucket/");
        JsonNode check = steps.get(1);
        assertThat(check.get("status").asText()).as(run.all()).isIn("ok", "findings");
        JsonNode result = check.get("result");
        assertThat(result.get("counts").has("unreachable_inlined_tables")).as("the catalog rules ran").isTrue();
        assertThat(result.has("storage")).as("no comparison").isFalse();
        assertThat(result.get("storage_not_checked").asText()).as("the storage steps' reason").isEqualTo(why);
        assertThat(result.get("counts").has("missing_data_files")).as("not counted as checked").isFalse();

        // as text: the section says the storage part was not checked, and why
        CliRun text = CliRun.run(Map.of(), "maintain", "--config", cfg.toString());
        assertThat(text.exitCode()).as(text.all()).isZero();
        assertThat(text.out()).contains("storage: not checked: no AWS credentials for s3://no-such-bucket/");

        // required: the step is a failure with the storage exit code, as a required storage step's
        Path required = config(cat.schema, "  - check: {storage: true, s3-endpoint: \"http://127.0.0.1:1\", required: true}\n");
        CliRun req = CliRun.run(Map.of(), "maintain", "--config", required.toString(), "--output", "json");
        assertThat(req.exitCode()).as(req.all()).isEqualTo(13);
        JsonNode r = req.json().get("catalogs").get(0).get("steps").get(0);
        assertThat(r.get("status").asText()).isEqualTo("error");
        assertThat(r.get("reason").asText()).isEqualTo("storage");
        assertThat(r.get("message").asText()).contains("required step not possible").contains("no AWS credentials")
                .contains("s3://no-such-bucket/");
    }

    @Test
    void onTheCommandLineCheckStorageNamesWhatIsMissingAndWhatToSet() throws Exception {
        FileCatalog cat = s3Catalog();

        CliRun run = CliRun.run(Map.of(), "check", "--catalog", TestPostgres.get().url(), "--metadata-schema", cat.schema,
                "--storage", "--s3-endpoint", "http://127.0.0.1:1");

        assertThat(run.exitCode()).as(run.all()).isEqualTo(13);
        assertThat(run.err()).as(run.all()).contains("no AWS credentials for s3://no-such-bucket/")
                .contains("AWS_ACCESS_KEY_ID").contains("AWS_SECRET_ACCESS_KEY").contains("AWS_PROFILE")
                .contains("without --storage")
                .doesNotContainIgnoringCase("access denied").doesNotContain("ACCESS_DENIED");
    }
}
