package dev.ducklake.janitor.cli;

/**
 * Remembers which signal (SIGTERM or SIGINT) is ending the process, so that the result document can carry the
 * process's exit code (143 or 130) and say the run was stopped. The JVM's own handling is kept: each handler
 * records the signal and hands it to the previous handler, which runs the shutdown hooks and exits with
 * 128 + the signal number. Installed by {@link Main#main} only (in-process runs never receive signals).
 */
final class SignalExit {

    /** Exit code of a process ended by SIGTERM (128 + 15). */
    static final int SIGTERM_EXIT = 143;
    /** Exit code of a process ended by SIGINT (128 + 2). */
    static final int SIGINT_EXIT = 130;

    private static volatile int exitCode;

    private SignalExit() {
    }

    /** Installs the recording handlers for TERM and INT; a platform without them keeps its defaults. */
    static void install() {
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                sun.misc.Signal signal = new sun.misc.Signal(name);
                sun.misc.SignalHandler[] previous = new sun.misc.SignalHandler[1];
                previous[0] = sun.misc.Signal.handle(signal, s -> {
                    exitCode = 128 + s.getNumber();
                    if (previous[0] != null && previous[0] != sun.misc.SignalHandler.SIG_DFL
                            && previous[0] != sun.misc.SignalHandler.SIG_IGN) {
                        previous[0].handle(s);
                    } else {
                        System.exit(128 + s.getNumber());
                    }
                });
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // not available here: the JVM's default handling stays
            }
        }
    }

    /**
     * The exit code of the signal ending the process.
     *
     * @return 143 or 130 once a signal arrived; {@link #SIGTERM_EXIT} when a stop was seen but no signal recorded
     *     (a shutdown hook run by other means)
     */
    static int exitCode() {
        int c = exitCode;
        return c == 0 ? SIGTERM_EXIT : c;
    }
}
