package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.ops.runtime.RunOptions;
import dev.ducklake.janitor.ops.cleanupoldfiles.CleanupOldFilesOptions;
import dev.ducklake.janitor.ops.expiresnapshots.ExpireSnapshotsOptions;
import dev.ducklake.janitor.pg.LockBudget;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

import java.util.Comparator;
import java.util.List;

/**
 * The operations of the tool, one line each: the list that registers the subcommands (in the order of {@code --help})
 * and {@code maintain}'s steps (in the order of its chain), and says what a unit of work of each is. An operation's
 * name is its command's {@code @Command(name = …)}.
 */
final class Operations {

    /**
     * What {@code --batch-size} counts for an operation.
     *
     * @param noun the unit in messages ({@code --batch-size must be between 1 and 2000 tables})
     * @param maximum the largest {@code --batch-size} accepted
     * @param defaultSize the batch size when {@code --batch-size} is not given
     */
    record BatchUnit(String noun, int maximum, int defaultSize) {

        /** The runtime's unit: up to the lock budget's ceiling ({@link LockBudget#MAX_BATCH}), {@link RunOptions}' default. */
        static final BatchUnit TABLES = new BatchUnit("tables", LockBudget.MAX_BATCH, RunOptions.DEFAULT_BATCH_SIZE);

        /**
         * @param noun what one unit is in this operation's messages
         * @return the runtime's bounds ({@link #TABLES}') counting {@code noun}
         */
        static BatchUnit counting(String noun) {
            return new BatchUnit(noun, TABLES.maximum(), TABLES.defaultSize());
        }
    }

    /**
     * One operation.
     *
     * @param command its picocli command class (a public no-argument constructor)
     * @param step its position in {@code maintain}'s chain, 1 first (the order of DuckLake's CHECKPOINT, with the
     *     janitor's own steps where they must run: the leak dropped before anything ATTACHes); 0 for no step
     * @param batch what its {@code --batch-size} counts, or null for a command without one
     */
    record Operation(Class<?> command, int step, BatchUnit batch) {

        /** @return the command name, also the step name and the {@code operation} of the JSON and the Pushgateway */
        String name() {
            return command.getAnnotation(Command.class).name();
        }

        /** @return a fresh command object */
        Object newCommand() {
            try {
                return CommandLine.defaultFactory().create(command);
            } catch (Exception e) {
                throw new IllegalStateException("cannot create " + command.getName(), e);
            }
        }
    }

    /** The operations, in the order of {@code --help}. */
    static final List<Operation> ALL = List.of(
            new Operation(DropOrphanInlineTablesCommand.class, 2, BatchUnit.TABLES),
            // a unit of work is a snapshot (the inlined tables one batch drops stay within the lock budget separately)
            new Operation(ExpireSnapshotsCommand.class, 1, new BatchUnit("snapshots", ExpireSnapshotsOptions.MAX_BATCH_SIZE,
                    ExpireSnapshotsOptions.DEFAULT_BATCH_SIZE)),
            new Operation(CheckCommand.class, 8, null),
            new Operation(PurgeOrphanStatsCommand.class, 3, BatchUnit.counting("ids")),
            new Operation(CleanupOldFilesCommand.class, 6, new BatchUnit("queue entries", BatchUnit.TABLES.maximum(),
                    CleanupOldFilesOptions.DEFAULT_BATCH_SIZE)),
            new Operation(DeleteOrphanFilesCommand.class, 7, null),
            // the Parquet half of CHECKPOINT through DuckLake's own functions, after the drop step (a leaked schema is refused
            // before ATTACH, exit 20; a missing DuckDB driver or extension is this step's exit 21, not the run's)
            new Operation(FlushInlinedDataCommand.class, 4, BatchUnit.TABLES),
            new Operation(CompactCommand.class, 5, BatchUnit.TABLES));

    /**
     * The commands that are not operations, after them in {@code --help}; {@code demo} and {@code bench} (from the demo
     * module, {@link OptionalCommands}) come between these and {@code help}.
     */
    private static final List<Class<?>> OTHER_COMMANDS = List.of(MaintainCommand.class, MetricsCommand.class,
            ServeCommand.class);

    private Operations() {
    }

    /** @return the operations that are {@code maintain} steps, in the chain's order */
    static List<Operation> steps() {
        return ALL.stream().filter(o -> o.step() > 0).sorted(Comparator.comparingInt(Operation::step)).toList();
    }

    /**
     * @param command a command class
     * @return its operation
     * @throws IllegalArgumentException when the class is not one of {@link #ALL}
     */
    static Operation of(Class<?> command) {
        return ALL.stream().filter(o -> o.command() == command).findFirst()
                .orElseThrow(() -> new IllegalArgumentException(command.getName() + " is not in Operations.ALL"));
    }

    /**
     * Registers the subcommands of {@link JanitorCommand}: the operations, then the other commands; names the steps in
     * {@code maintain}'s description ({@link MaintainCommand#STEPS}).
     * ({@code @Command(modelTransformer = …)}: picocli applies it to every {@code new CommandLine(new JanitorCommand(…))}.)
     */
    static final class Subcommands implements CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec spec) {
            for (Operation o : ALL) {
                spec.addSubcommand(o.name(), new CommandLine(o.newCommand()));
            }
            for (Class<?> c : OTHER_COMMANDS) {
                spec.addSubcommand(null, new CommandLine(c));
            }
            for (CommandLine c : OptionalCommands.commands()) {
                spec.addSubcommand(null, c);
            }
            spec.addSubcommand(null, new CommandLine(CommandLine.HelpCommand.class));
            CommandLine.Model.UsageMessageSpec maintain = spec.subcommands().get(MaintainCommand.OPERATION).getCommandSpec().usageMessage();
            String steps = String.join(", ", steps().stream().map(Operation::name).toList());
            maintain.description(java.util.Arrays.stream(maintain.description()).map(line -> line.replace(MaintainCommand.STEPS, steps))
                    .toArray(String[]::new));
            return spec;
        }
    }
}
