package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.maintain.MaintenanceStep;

import java.util.Map;

/** Test access to the CLI's maintain step registry. */
public final class MaintainStepsAccess {

    private MaintainStepsAccess() {
    }

    /** The registry with a progress printer that prints nowhere. */
    public static Map<String, MaintenanceStep> registry() {
        java.io.PrintWriter none = new java.io.PrintWriter(java.io.Writer.nullWriter());
        return MaintainSteps.registry(() -> new ProgressPrinter(none, none, true, false, false));
    }
}
