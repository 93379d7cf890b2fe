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

    @org.junit.jupiter.api.Test
    void oneGrammarForEveryDuration() {
        java.util.Map<String, Duration> good = new java.util.LinkedHashMap<>();
        good.put("30s", Duration.ofSeconds(30));
        good.put("40m", Duration.ofMinutes(40));
        good.put("12h", Duration.ofHours(12));
        good.put("1.5h", Duration.ofMinutes(90));
        good.put("7d", Duration.ofDays(7));
        good.put("2w", Duration.ofDays(14));
        good.put("500ms", Duration.ofMillis(500));
        good.put("P7D", Duration.ofDays(7));
        good.put("pt1h", Duration.ofHours(1));
        good.put("P1DT12H", Duration.ofHours(36));
        good.put("P2W", Duration.ofDays(14));
        good.put("7 days", Duration.ofDays(7));
        good.put("1 week", Duration.ofDays(7));
        good.put("3 hours 30 minutes", Duration.ofMinutes(210));
        good.put("90 seconds", Duration.ofSeconds(90));
        good.put(" 0s ", Duration.ZERO);
        good.put("36500d", Durations.MAX);
        good.forEach((text, d) -> assertThat(Durations.parse(text)).as(text).isEqualTo(d));
    }

    @org.junit.jupiter.api.Test
    void outOfRangeAndMalformedDurationsSayWhyInTheGrammar() {
        for (String bad : java.util.List.of("9999999999999d", "36501d", "99999999999999999999s", "P99999D", "1300 months", "-1d")) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> Durations.parse(bad)).as(bad)
                    .isInstanceOfSatisfying(Durations.InvalidDuration.class, e -> {
                        assertThat(e.outOfRange()).as(bad).isTrue();
                        assertThat(e.getMessage()).contains(bad.strip()).doesNotContain("PT");
                    });
        }
        for (String bad : java.util.List.of("", "7", "7x", "yesterday", "1h30", "P", "2 fortnights")) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> Durations.parse(bad)).as(bad)
                    .isInstanceOf(Durations.InvalidDuration.class).hasMessageContaining("30s, 40m");
        }
        assertThat(Durations.parseSpan("1 month 2 days")).isEqualTo(new Durations.Span(1, Duration.ofDays(2)));
    }

    @org.junit.jupiter.api.Test
    void messagesUseTheGrammarNotIso() {
        assertThat(Durations.format(Duration.ofHours(1))).isEqualTo("1h");
        assertThat(Durations.format(Duration.ofMinutes(90))).isEqualTo("90m");
        assertThat(Durations.format(Duration.ofDays(14))).isEqualTo("2w");
        assertThat(Durations.format(Duration.ofDays(2))).isEqualTo("2d");
        assertThat(Durations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(Durations.format(Duration.ZERO)).isEqualTo("0s");
    }
}
