package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.catalog.InlinedTablesSurvey;
import dev.ducklake.janitor.catalog.InlinedCandidate;
import dev.ducklake.janitor.ops.runtime.Counts;
import dev.ducklake.janitor.ops.runtime.RunFigures;
import dev.ducklake.janitor.ops.runtime.RunRecorder;

import java.util.ArrayList;
import java.util.List;

import static dev.ducklake.janitor.ops.droporphaninline.DropCount.*;

/**
 * The figures of one drop-orphan-inline-tables run, filled by name as the survey, the dry-run probe and each
 * committed batch report them, then turned into the {@link DropOrphanInlineTablesResult}.
 */
final class DropTally {

    /** Tables listed in the unregistered and anomaly lists (the counts are always complete; non-empty tables are all listed). */
    static final int MAX_LISTED = 1000;

    private final RunRecorder recorder;

    /** The run's counts. */
    final Counts<DropCount> counts = Counts.of(DropCount.class);
    /** Of {@link DropCount#SKIPPED_NONEMPTY}: by kind. */
    final Counts<InlinedCandidate.Origin> skippedNonemptyByKind = Counts.of(InlinedCandidate.Origin.class);
    final List<DropOrphanInlineTablesResult.NonEmptyTable> nonEmptyTables = new ArrayList<>();
    final List<String> unregisteredTables = new ArrayList<>();
    final List<DropOrphanInlineTablesResult.Anomaly> anomalyTables = new ArrayList<>();
    private final List<InlinedCandidate> lockBusy = new ArrayList<>();

    /** @param recorder where warnings about kept tables go */
    DropTally(RunRecorder recorder) {
        this.recorder = recorder;
    }

    void survey(InlinedTablesSurvey.Registry r, InlinedTablesSurvey.Unregistered u) {
        counts.add(REGISTRY_ROWS, r.rows()).add(ORPHAN_ROWS, r.orphanRows()).add(ORPHAN_TABLES_PRESENT, r.tablesPresent())
                .add(KEPT_BY_NAME_GUARD, r.keptByNameGuard()).add(KEPT_NOT_A_TABLE, r.keptNotATable())
                .add(UNREGISTERED_ORPHANS, u.count(InlinedCandidate.Origin.UNREGISTERED_DATA))
                .add(INLINED_DELETE_ORPHANS, u.count(InlinedCandidate.Origin.INLINED_DELETE))
                .add(INLINED_DELETE_LIVE, u.liveDeleteTables());
        for (InlinedTablesSurvey.AnomalousTable a : u.anomalies()) {
            counts.increment(ANOMALIES);
            if (anomalyTables.size() < MAX_LISTED) {
                anomalyTables.add(new DropOrphanInlineTablesResult.Anomaly(a.tableName(), a.tableId(), a.reason()));
            }
            recorder.rowWarning("anomaly: " + a.tableName() + ": " + a.reason());
        }
        u.dead().stream().limit(MAX_LISTED).map(InlinedCandidate::tableName).forEach(unregisteredTables::add);
        counts.add(UNREGISTERED_TABLES_TOTAL, u.dead().size());
    }

    void dryRun(DryRunProbe.Findings f) {
        counts.add(ORPHAN_NONEMPTY, f.orphanNonempty()).add(UNREGISTERED_NONEMPTY, f.unregisteredNonempty())
                .add(WOULD_DROP, f.wouldDrop());
        nonEmptyTables.addAll(f.nonEmpty());
    }

    void batchCommitted(DropBatch.Outcome o) {
        counts.addAll(o.counts);
        skippedNonemptyByKind.addAll(o.skippedNonemptyByKind);
        nonEmptyTables.addAll(o.nonEmpty);
        lockBusy.addAll(o.lockBusy);
        o.warnings.forEach(recorder::warn);
        o.detailWarnings.forEach(recorder::warnDetail);
    }

    /**
     * One warning for the non-empty orphans kept, instead of one per table (those are details, shown with
     * --verbose and listed in the JSON).
     *
     * @param dryRun whether this is a dry run (the tables would be kept)
     * @param includeNonempty whether --include-nonempty was given (then nothing non-empty is kept)
     */
    void summarizeNonEmpty(boolean dryRun, boolean includeNonempty) {
        long kept = dryRun ? (includeNonempty ? 0 : nonEmptyTables.size()) : counts.get(SKIPPED_NONEMPTY);
        if (kept == 0) {
            return;
        }
        long rows = nonEmptyTables.stream().filter(t -> !t.dropped() && t.rows() != null).mapToLong(t -> t.rows()).sum();
        recorder.warn((dryRun ? "would keep " : "kept ") + kept + " non-empty orphan table(s)"
                + (dryRun ? " holding " + rows + " row(s)" : "") + ": no retained snapshot reads their rows; pass "
                + "--include-nonempty to drop them (tables listed with --verbose and in --output json"
                + (dryRun ? ")" : "; a dry run counts their rows)"));
    }

    /** @return the tables found locked by another session since the last call, and forgets them */
    List<InlinedCandidate> takeLockBusy() {
        List<InlinedCandidate> out = List.copyOf(lockBusy);
        lockBusy.clear();
        return out;
    }

    DropOrphanInlineTablesResult toResult(String schema, String formatVersion, boolean dryRun, boolean includeNonempty,
                                          RunFigures run) {
        Counts<DropCount> c = counts;
        Counts<InlinedCandidate.Origin> byKind = skippedNonemptyByKind;
        return new DropOrphanInlineTablesResult(schema, formatVersion, dryRun,
                new DropOrphanInlineTablesResult.Registered(c.get(REGISTRY_ROWS), c.get(ORPHAN_ROWS), c.get(ORPHAN_TABLES_PRESENT),
                        c.get(ORPHAN_NONEMPTY), c.get(KEPT_BY_NAME_GUARD), c.get(KEPT_NOT_A_TABLE)),
                c.get(REMAINING), run,
                new DropOrphanInlineTablesResult.Unregistered(c.get(UNREGISTERED_ORPHANS), c.get(INLINED_DELETE_ORPHANS),
                        c.get(INLINED_DELETE_LIVE), c.get(UNREGISTERED_NONEMPTY), c.get(ANOMALIES)),
                c.get(REMAINING_UNREGISTERED),
                new DropOrphanInlineTablesResult.Drops(c.get(DROPPED), c.get(WOULD_DROP), c.get(ROWS_DELETED), c.get(MISSING_TABLES),
                        c.get(DROPPED_UNREGISTERED), c.get(DROPPED_INLINED_DELETE), c.get(DROPPED_NONEMPTY),
                        c.get(INLINED_ROWS_DROPPED), c.get(SKIPPED_NONEMPTY), byKind.get(InlinedCandidate.Origin.REGISTERED),
                        byKind.get(InlinedCandidate.Origin.UNREGISTERED_DATA), byKind.get(InlinedCandidate.Origin.INLINED_DELETE),
                        c.get(SKIPPED_LOCKED)),
                new DropOrphanInlineTablesResult.Listed(c.get(UNREGISTERED_TABLES_TOTAL) > unregisteredTables.size(),
                        c.get(UNREGISTERED_TABLES_TOTAL), c.get(ANOMALIES) > anomalyTables.size(), c.get(ANOMALIES),
                        List.copyOf(nonEmptyTables), List.copyOf(unregisteredTables), List.copyOf(anomalyTables)),
                includeNonempty);
    }
}
