package dev.ducklake.janitor.cli;

/** Exit codes that are not tied to a {@link dev.ducklake.janitor.JanitorException.Reason}. */
final class ExitCodes {
    /** Success. */
    static final int OK = 0;
    /** Malformed or out-of-range flags. */
    static final int USAGE = 2;

    private ExitCodes() {
    }
}
