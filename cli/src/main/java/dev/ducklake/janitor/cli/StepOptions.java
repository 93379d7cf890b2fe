package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.maintain.MaintainConfig;
import dev.ducklake.janitor.maintain.OptionKind;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Member;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The options of a {@code maintain} step, read from its command's own picocli model: each flag {@code --name} is the
 * step option {@code name}, of the {@link OptionKind} its Java type says (boolean: {@link OptionKind#BOOLEAN}; int,
 * long: {@link OptionKind#POSITIVE_INT}; double: {@link OptionKind#RATIO}; text, a path, a URL:
 * {@link OptionKind#TEXT}; a list of longs: {@link OptionKind#ID_LIST}), or of the kind its {@link Kind} names where
 * the type does not say it (seconds, a duration written as text). Not step options:
 * <ul>
 *   <li>the options every step has ({@link MaintainConfig#COMMON_OPTIONS}: batch size, max batches, run budget);</li>
 *   <li>flags marked {@link CliOnly}, on the flag or on the class of its mixin: where and how the command runs
 *       (connection, output, Pushgateway, dry run, confirmation, lock name, schemas), which {@code maintain} takes
 *       from the file or from its own flags;</li>
 *   <li>help, version, and the options inherited from the top-level command (logging).</li>
 * </ul>
 * A flag of another type without a {@link Kind} fails the registry's construction (a test builds it), so a new flag
 * is either a step option of a known kind or marked.
 */
final class StepOptions {

    /** The step option kind of a flag whose Java type does not say it (a duration in seconds or as text). */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.FIELD)
    @interface Kind {
        /** @return the kind */
        OptionKind value();
    }

    /**
     * Not a step option: a flag (or every flag of a mixin class) that {@code maintain} gives from its file or its own
     * flags, or does not offer.
     */
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.FIELD, ElementType.TYPE})
    @interface CliOnly {
    }

    private StepOptions() {
    }

    /**
     * @param command a command's picocli model
     * @return its step options by name (without {@code --}), with their kinds
     * @throws IllegalStateException for a flag whose kind its type does not say and that has no {@link Kind}
     */
    static Map<String, OptionKind> of(CommandSpec command) {
        Map<String, OptionKind> options = new LinkedHashMap<>();
        for (OptionSpec o : command.options()) {
            String name = o.longestName().replaceFirst("^--", "");
            if (o.usageHelp() || o.versionHelp() || o.inherited() || MaintainConfig.COMMON_OPTIONS.containsKey(name)
                    || cliOnly(o.userObject())) {
                continue;
            }
            options.put(name, kind(o));
        }
        return options;
    }

    private static boolean cliOnly(Object element) {
        return element instanceof AnnotatedElement a && a.isAnnotationPresent(CliOnly.class)
                || element instanceof Member m && m.getDeclaringClass().isAnnotationPresent(CliOnly.class);
    }

    private static OptionKind kind(OptionSpec o) {
        if (o.userObject() instanceof AnnotatedElement a && a.isAnnotationPresent(Kind.class)) {
            return a.getAnnotation(Kind.class).value();
        }
        Class<?> t = o.type();
        if (t == boolean.class || t == Boolean.class) {
            return OptionKind.BOOLEAN;
        }
        if (t == int.class || t == Integer.class || t == long.class || t == Long.class) {
            return OptionKind.POSITIVE_INT;
        }
        if (t == double.class || t == Double.class) {
            return OptionKind.RATIO;
        }
        if (t == String.class || t == Path.class || t == URI.class) {
            return OptionKind.TEXT;
        }
        if (List.class.isAssignableFrom(t) && o.auxiliaryTypes().length == 1 && o.auxiliaryTypes()[0] == Long.class) {
            return OptionKind.ID_LIST;
        }
        throw new IllegalStateException(o.longestName() + " (" + t.getSimpleName() + ") of " + o.command().qualifiedName()
                + ": its step option kind is not known from its type; mark it @StepOptions.Kind or @StepOptions.CliOnly");
    }
}
