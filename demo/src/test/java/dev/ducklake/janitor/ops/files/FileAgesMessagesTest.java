package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.JanitorException;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Trial 42, item 4: a library caller's --min-age is quoted in the project's duration form, never ISO (PT5M). */
class FileAgesMessagesTest {

    @Test
    void theFloorQuotesTheMinimumAgeInTheProjectsForm() {
        assertThatThrownBy(() -> FileAges.checkFloor(Duration.ofMinutes(5), Duration.ofHours(24), false, "delete-orphan-files"))
                .isInstanceOf(JanitorException.class)
                .hasMessageContaining("--min-age 5m is below the 24 h floor of delete-orphan-files")
                .hasMessageNotContaining("PT");
        assertThatThrownBy(() -> FileAges.checkFloor(Duration.ofMinutes(-90), Duration.ofHours(1), true, "cleanup-old-files"))
                .isInstanceOf(JanitorException.class)
                .hasMessageContaining("got -90m")
                .hasMessageNotContaining("PT");
    }
}
