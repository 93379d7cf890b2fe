package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ducklake.janitor.ops.check.CheckResult;
import dev.ducklake.janitor.catalog.health.CheckRules;
import dev.ducklake.janitor.catalog.health.Finding;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 22 part 3: every check finding kind has a severity (damage or debris), shown in the text and JSON output, and the
 * maintain check step's fail-on decides which findings exit 12 (default damage: debris alone exits 0; a failed rule still 9).
 */
class CheckSeverityTest {

    private static CheckResult result(List<Finding> findings, List<CheckResult.RuleError> errors) {
        return new CheckResult("s", "1.0", findings.isEmpty() ? (errors.isEmpty() ? CheckResult.CLEAN : CheckResult.INCOMPLETE)
                : CheckResult.FINDINGS, findings, Map.of(), errors, 0.1, Map.of());
    }

    private static Finding finding(String kind) {
        return new Finding(kind, 3, List.of(), "fix");
    }

    @Test
    void everyKindHasASeverityAndTheDamageKindsAreTheOnesAReaderHits() {
        for (String kind : CheckRules.kinds()) {
            assertThat(CheckRules.severityOf(kind)).as(kind).isIn(CheckRules.DAMAGE, CheckRules.DEBRIS);
        }
        assertThat(CheckRules.kinds().stream().filter(k -> CheckRules.severityOf(k).equals(CheckRules.DAMAGE)))
                .containsExactlyInAnyOrder("registry_rows_without_table_of_reachable_tables", "inlined_table_anomalies",
                        "queued_files_still_referenced", "schema_versions_migration_duplicates", "rows_beyond_last_snapshot", "interrupted_migration_tables");
        assertThat(CheckRules.severityOf("dead_inlined_rows")).isEqualTo(CheckRules.DEBRIS);
        assertThat(CheckRules.severityOf("unreachable_inlined_tables")).isEqualTo(CheckRules.DEBRIS);
    }

    @Test
    void failOnDecidesTheStepsExitCode() {
        CheckResult debris = result(List.of(finding("dead_inlined_rows"), finding("orphaned_stats_rows")), List.of());
        CheckResult damage = result(List.of(finding("dead_inlined_rows"), finding("queued_files_still_referenced")), List.of());
        CheckResult failed = result(List.of(), List.of(new CheckResult.RuleError("catalog_bloat", "SQLSTATE 57014: timeout", false)));
        assertThat(MaintainSteps.CheckStep.exitCode(debris, "damage")).as("debris alone passes the default").isZero();
        assertThat(MaintainSteps.CheckStep.exitCode(debris, "debris")).isEqualTo(12);
        assertThat(MaintainSteps.CheckStep.exitCode(debris, "any")).isEqualTo(12);
        assertThat(MaintainSteps.CheckStep.exitCode(damage, "damage")).isEqualTo(12);
        assertThat(MaintainSteps.CheckStep.exitCode(result(List.of(), List.of()), "any")).isZero();
        assertThat(MaintainSteps.CheckStep.exitCode(failed, "damage")).as("a failed rule: not known to be clean").isEqualTo(9);
        assertThat(CheckCommand.exitCode(debris)).as("the check command itself still exits 12 on any finding").isEqualTo(12);
    }

    @Test
    void textAndJsonNameTheSeverity() throws Exception {
        CheckResult r = result(List.of(finding("dead_inlined_rows"), finding("rows_beyond_last_snapshot")), List.of());
        StringWriter text = new StringWriter();
        CheckCommand.printResult(new PrintWriter(text), dev.ducklake.janitor.pg.ConnectionSpec.parse("postgresql://u@h:5432/d", Map.of(), null), r);
        assertThat(text.toString()).contains("dead_inlined_rows (debris): 3").contains("rows_beyond_last_snapshot (damage): 3");
        StringWriter json = new StringWriter();
        Render.json(new PrintWriter(json), r);
        JsonNode doc = new ObjectMapper().readTree(json.toString());
        assertThat(doc.get("findings").get(0).get("severity").asText()).isEqualTo("debris");
        assertThat(doc.get("findings").get(1).get("severity").asText()).isEqualTo("damage");
    }
}
