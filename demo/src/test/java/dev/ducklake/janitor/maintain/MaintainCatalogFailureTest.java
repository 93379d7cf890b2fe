package dev.ducklake.janitor.maintain;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.testsupport.CliRun;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A catalog that cannot be maintained at all (here: its server refuses the connection) has every configured step in the
 * result, each with status error, the reason and its exit code, in JSON and in text; the failure is said once on stderr,
 * and the other catalog is maintained.
 */
class MaintainCatalogFailureTest {

    @TempDir
    Path tmp;

    @Test
    void everyStepOfACatalogWhoseConnectionIsRefusedIsAnErrorWithTheReason() throws Exception {
        String good = MaintainCommandTest.leakedCatalog("maint_refused_good", 2);
        Path cfg = tmp.resolve("maintain.yaml");
        Files.writeString(cfg, "catalogs:\n"
                + "  - name: refused\n    connection: postgresql://janitor@127.0.0.1:1/lake?connect_timeout=2\n"
                + "    metadata_schema: lake\n"
                + "  - name: refused_all\n    connection: postgresql://janitor@127.0.0.1:1/lake?connect_timeout=2\n"
                + "    all_metadata_schemas: true\n"
                + MaintainCommandTest.catalog("good", TestPostgres.get().url(), good)
                + "maintain:\n  - expire-snapshots: {retain-last: 10}\n  - drop-orphan-inline-tables: {}\n  - check: {}\n");

        CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");

        assertThat(run.exitCode()).as(run.all()).isEqualTo(3);
        JsonNode doc = MaintainCommandTest.JSON.readTree(run.out());
        JsonNode refused = doc.get("catalogs").get(0);
        assertThat(refused.get("name").asText()).isEqualTo("refused");
        assertThat(refused.get("status").asText()).isEqualTo("error");
        assertThat(refused.get("exit_code").asInt()).isEqualTo(3);
        assertThat(refused.get("reason").asText()).as("the catalog says why, once").isEqualTo("connection");
        assertThat(refused.get("message").asText()).isNotBlank();
        JsonNode steps = refused.get("steps");
        assertThat(steps).as("every configured step, none missing").hasSize(3);
        for (JsonNode s : steps) {
            assertThat(s.get("status").asText()).as(s.toString()).isEqualTo("error");
            assertThat(s.get("reason").asText()).as(s.toString()).isEqualTo("connection");
            assertThat(s.get("exit_code").asInt()).as(s.toString()).isEqualTo(3);
            assertThat(s.get("hint").asText()).isNotBlank();
            assertThat(s.get("schema").asText()).isEqualTo("lake");
        }
        assertThat(steps.get(1).get("message").asText()).as("a step not started says which one failed")
                .startsWith("not started: expire-snapshots failed on this catalog (connection): ");
        // its schemas cannot even be listed: every step, with no schema
        JsonNode all = doc.get("catalogs").get(1);
        assertThat(all.get("reason").asText()).isEqualTo("connection");
        assertThat(all.get("exit_code").asInt()).isEqualTo(3);
        assertThat(all.get("steps")).hasSize(3).allSatisfy(s -> {
            assertThat(s.get("status").asText()).isEqualTo("error");
            assertThat(s.get("reason").asText()).isEqualTo("connection");
            assertThat(s.get("schema").isNull()).isTrue();
        });
        assertThat(doc.get("summary").get("steps_not_run").asInt()).isZero();
        assertThat(doc.get("summary").get("steps_error").asInt()).isEqualTo(6);
        assertThat(doc.get("catalogs").get(2).get("status").asText()).as("the other catalog is maintained").isEqualTo("ok");
        assertThat(doc.get("catalogs").get(2).has("reason")).isFalse();
        assertThat(run.err()).as("the failure on stderr, for the scheduler's mail").contains("error: expire-snapshots failed (exit 3");
        assertThat(run.err()).as("steps not started are not said again").doesNotContain("error: drop-orphan-inline-tables failed");

        CliRun text = CliRun.run(Map.of(), "maintain", "--config", cfg.toString());
        assertThat(text.exitCode()).isEqualTo(3);
        assertThat(text.out()).contains("catalog refused cannot be maintained (exit 3, connection): ")
                .contains("catalog refused_all cannot be maintained (exit 3, connection): ");
        Matcher m = Pattern.compile("-- [a-z-]+, schema (lake|\\?): FAILED \\(exit 3, connection\\)").matcher(text.out());
        int failed = 0;
        while (m.find()) {
            failed++;
        }
        assertThat(failed).as(text.out()).isEqualTo(6);
        assertThat(text.out()).doesNotContain("not run");
    }

    @Test
    void aCatalogWhoseLockAnotherRunHoldsListsEveryStepAsLockHeld() throws Exception {
        String schema = MaintainCommandTest.leakedCatalog("maint_locked", 2);
        Path cfg = tmp.resolve("locked.yaml");
        Files.writeString(cfg, "catalogs:\n" + MaintainCommandTest.catalog("locked", TestPostgres.get().url(), schema)
                + "maintain:\n  - expire-snapshots: {retain-last: 10}\n  - drop-orphan-inline-tables: {}\n");
        try (java.sql.Connection holder = TestPostgres.get().connect();
             java.sql.PreparedStatement ps = holder.prepareStatement("SELECT pg_advisory_lock(hashtext(?)::bigint)")) {
            // another run of the same catalog schema (AdvisoryLock: hashtext(lock name || ':' || schema), exclusive)
            ps.setString(1, "ducklake-maintenance:" + schema);
            ps.execute();
            CliRun run = CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json");
            assertThat(run.exitCode()).as(run.all()).isEqualTo(7);
            JsonNode cat = MaintainCommandTest.JSON.readTree(run.out()).get("catalogs").get(0);
            assertThat(cat.get("reason").asText()).as(cat.toString()).isEqualTo("lock_held");
            assertThat(cat.get("steps")).hasSize(2).allSatisfy(s -> {
                assertThat(s.get("status").asText()).isEqualTo("error");
                assertThat(s.get("reason").asText()).isEqualTo("lock_held");
                assertThat(s.get("exit_code").asInt()).isEqualTo(7);
            });
        }
    }
}
