package dev.ducklake.janitor.ops.droporphaninline;

import dev.ducklake.janitor.catalog.InlinedTablesSurvey;
import dev.ducklake.janitor.catalog.InlinedCandidate;
import dev.ducklake.janitor.ops.RunFigures;
import dev.ducklake.janitor.ops.RunRecorder;

import java.util.ArrayList;
import java.util.List;

/**
 * The figures of one drop-orphan-inline-tables run, filled by name as the survey, the dry-run probe and each
 * committed batch report them, then turned into the {@link DropOrphanInlineTablesResult}.
 */
final class Tally {

    /** Tables listed in the unregistered and anomaly lists (the counts are always complete; non-empty tables are all listed). */
    static final int MAX_LISTED = 1000;

    private final RunRecorder recorder;

    long registryRows;
    long orphanRows;
    long orphanTablesPresent;
    long keptByNameGuard;
    long keptNotATable;
    long unregisteredOrphans;
    long inlinedDeleteOrphans;
    long inlinedDeleteLive;
    long anomalyCount;
    long orphanNonempty;
    long unregisteredNonempty;
    long wouldDrop;
    long dropped;
    long rowsDeleted;
    long missingTables;
    long skippedNonempty;
    long skippedLocked;
    final long[] skippedNonemptyByKind = new long[InlinedCandidate.Origin.values().length];
    long unregisteredTablesTotal;
    long droppedUnregistered;
    long droppedInlinedDelete;
    long droppedNonempty;
    long inlinedRowsDropped;
    long remaining;
    long remainingUnregistered;
    final List<DropOrphanInlineTablesResult.NonEmptyTable> nonEmptyTables = new ArrayList<>();
    final List<String> unregisteredTables = new ArrayList<>();
    final List<DropOrphanInlineTablesResult.Anomaly> anomalyTables = new ArrayList<>();
    private final List<InlinedCandidate> lockBusy = new ArrayList<>();

    /** @param recorder where warnings about kept tables go */
    Tally(RunRecorder recorder) {
        this.recorder = recorder;
    }

    void survey(InlinedTablesSurvey.Registry r, InlinedTablesSurvey.Unregistered u) {
        registryRows = r.rows();
        orphanRows = r.orphanRows();
        orphanTablesPresent = r.tablesPresent();
        keptByNameGuard = r.keptByNameGuard();
        keptNotATable = r.keptNotATable();
        unregisteredOrphans = u.count(InlinedCandidate.Origin.UNREGISTERED_DATA);
        inlinedDeleteOrphans = u.count(InlinedCandidate.Origin.INLINED_DELETE);
        inlinedDeleteLive = u.liveDeleteTables();
        for (InlinedTablesSurvey.AnomalousTable a : u.anomalies()) {
            anomalyCount++;
            if (anomalyTables.size() < MAX_LISTED) {
                anomalyTables.add(new DropOrphanInlineTablesResult.Anomaly(a.tableName(), a.tableId(), a.reason()));
            }
            recorder.rowWarning("anomaly: " + a.tableName() + ": " + a.reason());
        }
        u.dead().stream().limit(MAX_LISTED).map(InlinedCandidate::tableName).forEach(unregisteredTables::add);
        unregisteredTablesTotal = u.dead().size();
    }

    void dryRun(DryRunProbe.Findings f) {
        orphanNonempty = f.orphanNonempty();
        unregisteredNonempty = f.unregisteredNonempty();
        wouldDrop = f.wouldDrop();
        nonEmptyTables.addAll(f.nonEmpty());
    }

    void batchCommitted(DropBatch.Outcome o) {
        dropped += o.dropped;
        rowsDeleted += o.rowsDeleted;
        missingTables += o.missing;
        skippedNonempty += o.skippedNonempty;
        droppedUnregistered += o.droppedUnregistered;
        droppedInlinedDelete += o.droppedInlinedDelete;
        droppedNonempty += o.droppedNonempty;
        inlinedRowsDropped += o.rowsDropped;
        orphanNonempty += o.registeredNonempty;
        unregisteredNonempty += o.unregisteredNonempty;
        nonEmptyTables.addAll(o.nonEmpty);
        for (int k = 0; k < skippedNonemptyByKind.length; k++) {
            skippedNonemptyByKind[k] += o.skippedNonemptyByKind[k];
        }
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
        long kept = dryRun ? (includeNonempty ? 0 : nonEmptyTables.size()) : skippedNonempty;
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
        return new DropOrphanInlineTablesResult(
                schema,
                formatVersion,
                dryRun,
                registryRows,
                orphanRows,
                orphanTablesPresent,
                orphanNonempty,
                keptByNameGuard,
                keptNotATable,
                dropped,
                rowsDeleted,
                missingTables,
                skippedNonempty,
                skippedLocked,
                remaining,
                run,
                unregisteredOrphans,
                inlinedDeleteOrphans,
                inlinedDeleteLive,
                unregisteredNonempty,
                anomalyCount,
                wouldDrop,
                droppedUnregistered,
                droppedInlinedDelete,
                droppedNonempty,
                inlinedRowsDropped,
                remainingUnregistered,
                skippedNonemptyByKind[InlinedCandidate.Origin.REGISTERED.ordinal()],
                skippedNonemptyByKind[InlinedCandidate.Origin.UNREGISTERED_DATA.ordinal()],
                skippedNonemptyByKind[InlinedCandidate.Origin.INLINED_DELETE.ordinal()],
                unregisteredTablesTotal > unregisteredTables.size(),
                unregisteredTablesTotal,
                anomalyCount > anomalyTables.size(),
                anomalyCount,
                List.copyOf(nonEmptyTables),
                List.copyOf(unregisteredTables),
                List.copyOf(anomalyTables),
                includeNonempty);
    }
}
