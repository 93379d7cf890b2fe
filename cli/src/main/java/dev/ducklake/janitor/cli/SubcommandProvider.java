package dev.ducklake.janitor.cli;

import java.util.List;

/**
 * Commands that the production jar does not hold, found through {@link java.util.ServiceLoader}: {@code demo} and
 * {@code bench} live in the ducklake-janitor-demo module, the only one that carries the embedded PostgreSQL and
 * jfreechart (issue 25). The jar's manifest {@code Class-Path} names that module in {@code lib/}; without it (a jar alone,
 * the container image) the commands still appear in {@code --help} and refuse with exit 21 ({@link OptionalCommands}).
 */
public interface SubcommandProvider {

    /** @return picocli command classes (each with a public no-argument constructor), known by their {@code @Command} name */
    List<Class<?>> commands();
}
