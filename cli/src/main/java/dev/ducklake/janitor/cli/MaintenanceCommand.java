package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import picocli.CommandLine.Mixin;

import java.util.concurrent.Callable;

/**
 * Base of the subcommands that run a {@link dev.ducklake.janitor.ops.runtime.MaintenanceOperation} through
 * {@link MaintenanceRunner}: adds the run options ({@code --dry-run}, batches, timeouts, lock, schemas) and the
 * Pushgateway options to {@link CatalogCommand}'s fields, and names the operation once.
 *
 * @param <R> the operation's result
 */
abstract class MaintenanceCommand<R extends MaintenanceResult> extends CatalogCommand
        implements Callable<Integer>, OperationAdapter<R> {

    @Mixin
    RunOptionsMixin run;

    @Mixin
    PushOptions push;

    private final String operation;
    private final Class<R> resultType;

    MaintenanceCommand(String operation, Class<R> resultType) {
        this.operation = operation;
        this.resultType = resultType;
    }

    @Override
    public final String operation() {
        return operation;
    }

    @Override
    public final Class<R> resultType() {
        return resultType;
    }

    /**
     * Runs the operation on the schemas the flags name, prints, pushes.
     *
     * @return the exit code (the worst schema's with several)
     * @throws JanitorException on bad flags or a failure that ends the whole run, with its exit code
     */
    final int runOperation() throws JanitorException {
        return new MaintenanceRunner<>(this, parent.env(), push, spec.commandLine().getOut(), spec.commandLine().getErr(),
                output.json(), verbose.verbose).run(catalog, run);
    }
}
