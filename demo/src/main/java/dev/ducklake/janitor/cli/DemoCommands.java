package dev.ducklake.janitor.cli;

import java.util.List;

/** The demo module's commands, for the CLI's {@link java.util.ServiceLoader} ({@code META-INF/services}). */
public final class DemoCommands implements SubcommandProvider {

    @Override
    public List<Class<?>> commands() {
        return List.of(DemoCommand.class, BenchCommand.class);
    }
}
