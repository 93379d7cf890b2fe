package dev.ducklake.janitor;

import dev.ducklake.janitor.JanitorException.Reason;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

class ReasonTest {

    @Test
    void theOrderQuotedByHelpTextIsTheSeverityList() {
        String derived = Reason.exitCodesBySeverity().stream().map(String::valueOf).collect(Collectors.joining(" > "));
        assertThat(Reason.EXIT_CODE_ORDER).isEqualTo(derived);
    }

    @Test
    void everyReasonHasItsOwnExitCodeAndARankInTheOrder() {
        assertThat(Arrays.stream(Reason.values()).map(Reason::exitCode).distinct().count()).isEqualTo(Reason.values().length);
        assertThat(Reason.exitCodesBySeverity()).containsAll(Arrays.stream(Reason.values()).map(Reason::exitCode).toList())
                .contains(0).hasSize(Reason.values().length + 1);
    }
}
