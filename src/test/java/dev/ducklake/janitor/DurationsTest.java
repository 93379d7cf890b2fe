package dev.ducklake.janitor;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class DurationsTest {

    @Test
    void positiveSubMillisecondNeverBecomesNoTimeout() {
        assertThat(Durations.ofSeconds(0.0001)).as("0.1 ms would round to 0 = no timeout in PostgreSQL").isEqualTo(Duration.ofMillis(1));
        assertThat(Durations.ofSeconds(0)).isEqualTo(Duration.ZERO);
        assertThat(Durations.ofSeconds(1.5)).isEqualTo(Duration.ofMillis(1500));
        assertThat(Durations.ofSeconds(120)).isEqualTo(Duration.ofSeconds(120));
    }
}
