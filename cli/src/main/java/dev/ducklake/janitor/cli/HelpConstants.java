package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.ops.runtime.MaintenanceSession;
import dev.ducklake.janitor.retry.Backoff;
import dev.ducklake.janitor.retry.RetryPolicy;

import java.util.Locale;

/**
 * The engine's constants that help texts quote, published as system properties so that a description (an annotation
 * or a resource bundle entry) spells them as picocli variables ({@code ${sys:ducklake-janitor.retry-attempts}}) instead
 * of copying a figure that would drift from the code. Published once, by the commands that quote them (their static
 * initialisers call {@link #publish}); a property already set (by a test, say) is overwritten with the engine's value.
 */
final class HelpConstants {

    /** Attempts of one unit of work, the first included ({@link RetryPolicy#MAX_ATTEMPTS}). */
    static final String RETRY_ATTEMPTS = "ducklake-janitor.retry-attempts";
    /** The retry backoff, e.g. {@code 200 ms doubling to 5 s} ({@link RetryPolicy#DEFAULT}). */
    static final String RETRY_BACKOFF = "ducklake-janitor.retry-backoff";
    /** The reconnect backoff after a lost connection, e.g. {@code 1 s doubling to 10 s} ({@link MaintenanceSession#RECONNECT_BACKOFF}). */
    static final String RECONNECT_BACKOFF = "ducklake-janitor.reconnect-backoff";

    private HelpConstants() {
    }

    /** Sets the properties (idempotent). */
    static void publish() {
        System.setProperty(RETRY_ATTEMPTS, Integer.toString(RetryPolicy.DEFAULT.maxAttempts()));
        Backoff b = RetryPolicy.DEFAULT.backoff();
        System.setProperty(RETRY_BACKOFF, duration(b.firstMillis()) + " doubling to " + duration(b.maxMillis()));
        Backoff r = MaintenanceSession.RECONNECT_BACKOFF;
        System.setProperty(RECONNECT_BACKOFF, duration(r.firstMillis()) + " doubling to " + duration(r.maxMillis()));
    }

    /** {@code 200 ms}, {@code 5 s}, {@code 1.5 s}. */
    static String duration(long millis) {
        if (millis < 1000) {
            return millis + " ms";
        }
        return millis % 1000 == 0 ? millis / 1000 + " s" : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
