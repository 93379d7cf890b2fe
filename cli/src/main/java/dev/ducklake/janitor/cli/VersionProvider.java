package dev.ducklake.janitor.cli;

import picocli.CommandLine;

/** Reports the jar's version (Implementation-Version), or "dev" when run from classes. */
public final class VersionProvider implements CommandLine.IVersionProvider {

    /** The tool's version string. */
    public static String version() {
        String v = VersionProvider.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }

    @Override
    public String[] getVersion() {
        return new String[] {"ducklake-janitor " + version()};
    }
}
