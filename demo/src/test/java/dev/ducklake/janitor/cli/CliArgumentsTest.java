package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.testsupport.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** Flags that are wrong on their own: exit 2 before any connection is attempted. */
class CliArgumentsTest {

    private static final String NOWHERE = "postgresql://nobody@127.0.0.1:1/none";

    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "2001", "abc", "1.5", ""})
    void batchSizeOutOfRangeIsAUsageError(String value) {
        CliRun r = CliRun.run("drop-orphan-inline-tables", "--catalog", NOWHERE, "--dry-run", "--batch-size", value);
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).contains("--batch-size").doesNotContain("Exception");
    }

    /** The range message counts the command's own unit (it said "tables" for ids and queue entries). */
    @ParameterizedTest
    @CsvSource({"drop-orphan-inline-tables,tables", "purge-orphan-stats,ids",
            "cleanup-old-files,queue entries"})
    void batchSizeRangeNamesTheCommandsUnit(String command, String unit) {
        CliRun r = CliRun.run(command, "--catalog", NOWHERE, "--dry-run", "--batch-size", "2001");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).contains("--batch-size must be between 1 and 2000 " + unit + ", got 2001");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-5", "abc", "nan"})
    void runBudgetMustBePositive(String value) {
        CliRun r = CliRun.run("drop-orphan-inline-tables", "--catalog", NOWHERE, "--dry-run", "--run-budget", value);
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).contains("--run-budget");
    }

    @ParameterizedTest
    @ValueSource(strings = {"--lock-timeout", "--statement-timeout"})
    void timeoutsBeyondPostgresLimitAreUsageErrors(String flag) {
        // found by trying it: 1e12 s reached the server, failed every batch attempt and ended with exit 9
        CliRun r = CliRun.run("drop-orphan-inline-tables", "--catalog", NOWHERE, "--dry-run", flag, "1e12");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).contains(flag).contains("2147483");
        CliRun ok = CliRun.run("drop-orphan-inline-tables", "--catalog", NOWHERE, "--dry-run", flag, "2147483");
        assertThat(ok.exitCode()).as("the largest value is accepted (then the connection fails): " + ok).isEqualTo(3);
    }

    @Test
    void noCommandIsAUsageError() {
        // found by trying it: an empty command (a cron line with an unset variable) printed the usage and exited 0
        CliRun r = CliRun.run();
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).contains("no command given").contains("drop-orphan-inline-tables");
        assertThat(CliRun.run("--help").exitCode()).as("--help is still a success").isZero();
    }

    @Test
    void maxBatchesMustBePositive() {
        CliRun r = CliRun.run("drop-orphan-inline-tables", "--catalog", NOWHERE, "--max-batches", "0");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).contains("--max-batches");
    }

    @Test
    void unknownFlagAndUnknownOutputAreUsageErrors() {
        assertThat(CliRun.run("drop-orphan-inline-tables", "--catalog", NOWHERE, "--bogus").exitCode()).isEqualTo(2);
        assertThat(CliRun.run("drop-orphan-inline-tables", "--catalog", NOWHERE, "--output", "xml").exitCode()).isEqualTo(2);
    }

    @Test
    void missingCatalogIsAUsageErrorNamingTheFlag() {
        CliRun r = CliRun.run("drop-orphan-inline-tables", "--dry-run");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
        assertThat(r.err()).contains("--catalog").contains("DUCKLAKE_JANITOR_CATALOG");
    }

    @Test
    void unreachableServerIsAConnectionErrorWithoutPassword() {
        CliRun r = CliRun.run("drop-orphan-inline-tables", "--catalog", "postgresql://u:Sup3rSecret@127.0.0.1:1/x", "--dry-run",
                "--output", "json");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(3);
        assertThat(r.out() + r.err()).doesNotContain("Sup3rSecret").doesNotContain("\tat ");
        assertThat(r.json().get("status").asText()).isEqualTo("error");
        assertThat(r.json().get("exit_code").asInt()).isEqualTo(3);
    }

    @Test
    void helpDocumentsEveryFlagWithItsDefault() {
        CliRun r = CliRun.run("drop-orphan-inline-tables", "--help");
        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).contains("--dry-run", "--batch-size", "Default: 500", "--max-batches", "--run-budget",
                "--lock-name", "Default: ducklake-maintenance", "--metadata-schema", "Default: public", "--output", "--yes",
                "--catalog", "--statement-timeout", "Default: 120", "--lock-timeout", "--password-file");
    }

    @Test
    void environmentVariableNamesTheCatalog() {
        CliRun r = CliRun.run(java.util.Map.of("DUCKLAKE_JANITOR_CATALOG", "postgresql://u@127.0.0.1:1/x"),
                "drop-orphan-inline-tables", "--dry-run");
        assertThat(r.exitCode()).as("reaches the connection step, so the variable was read: " + r).isEqualTo(3);
        assertThat(r.err()).contains("127.0.0.1");
    }
}
