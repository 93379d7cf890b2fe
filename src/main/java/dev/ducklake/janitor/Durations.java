package dev.ducklake.janitor;

import java.time.Duration;

/** Conversion of operator-given seconds to durations, shared by flags and configuration files. */
public final class Durations {

    private Durations() {
    }

    /**
     * Seconds to a duration in whole milliseconds. A positive value never becomes zero: anything below one
     * millisecond is rounded up to 1 ms, because PostgreSQL reads a timeout of 0 as "no timeout".
     *
     * @param seconds a finite number of seconds, 0 or more
     * @return the duration, rounded to the nearest millisecond (at least 1 ms when {@code seconds > 0})
     */
    public static Duration ofSeconds(double seconds) {
        long ms = Math.round(seconds * 1000);
        if (seconds > 0 && ms == 0) {
            ms = 1;
        }
        return Duration.ofMillis(ms);
    }
}
