package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.maintain.MaintenanceStep;

import java.util.Map;

/** Test access to the CLI's maintain step registry and its list of operations. */
public final class MaintainStepsAccess {

    private MaintainStepsAccess() {
    }

    /** The registry with a progress printer that prints nowhere. */
    public static Map<String, MaintenanceStep> registry() {
        java.io.PrintWriter none = new java.io.PrintWriter(java.io.Writer.nullWriter());
        return MaintainSteps.registry(() -> new ProgressPrinter(none, none, true, false, false));
    }

    /** The names of the operations ({@link Operations#ALL}), in the order of {@code --help}. */
    public static java.util.List<String> operations() {
        return Operations.ALL.stream().map(Operations.Operation::name).toList();
    }
}
