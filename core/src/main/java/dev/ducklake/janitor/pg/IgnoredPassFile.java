package dev.ducklake.janitor.pg;

import org.postgresql.plugin.AuthenticationPlugin;
import org.postgresql.plugin.AuthenticationRequestType;

/**
 * pgJDBC's password source for a login whose password file {@link PassFile} ignored: no password, so that pgJDBC
 * does not use the password it read from that file on its own (a login plugin wins over it); the server's request
 * for a password then fails as "no password was provided" (08004), which {@link LoginFailure} explains. Public only
 * because pgJDBC instantiates it by name.
 */
public final class IgnoredPassFile implements AuthenticationPlugin {

    /** For pgJDBC. */
    public IgnoredPassFile() {
    }

    @Override
    public char[] getPassword(AuthenticationRequestType type) {
        return null;
    }
}
