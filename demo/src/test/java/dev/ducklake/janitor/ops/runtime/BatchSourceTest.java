package dev.ducklake.janitor.ops.runtime;

import dev.ducklake.janitor.ops.runtime.MaintenanceRuntimeTest.Work;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The batch loop over a keyset query and over parts one after the other, on a real PostgreSQL (issue 25). */
class BatchSourceTest {

    private final TestPostgres pg = TestPostgres.get();

    /** The integers 1..n from the server, {@code limit} after {@code last} at a time. */
    private static List<Integer> page(Connection c, Integer last, int limit, int n) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT g FROM generate_series(1, ?) g WHERE g > ? ORDER BY g LIMIT ?")) {
            ps.setInt(1, n);
            ps.setInt(2, last == null ? 0 : last);
            ps.setInt(3, limit);
            List<Integer> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getInt(1));
                }
            }
            return out;
        }
    }

    @Test
    void aKeysetSourceFeedsOneLoopAcrossPagesAndPartsNeverShareABatch() throws Exception {
        AtomicInteger pages = new AtomicInteger();
        Work work = new Work((n, slice) -> null);
        try (MaintenanceRun run = MaintenanceRun.open(pg.spec(), RunOptions.builder().reconnectTimeout(Duration.ofSeconds(20)).build(),
                ProgressListener.NONE, new AtomicBoolean())) {
            BatchSource<Integer> first = run.keyset("first", 7, (c, last, limit) -> {
                pages.incrementAndGet();
                return page(c, last, limit, 23);
            });
            BatchSource<Integer> second = BatchSource.of(List.of(101, 102, 103));
            assertThat(run.batchLoop(new BatchSizer(5), work).run(BatchSource.concat(List.of(first, second)))).isEqualTo(26);
        }
        assertThat(work.committedSizes).as("23 keyset units in batches of 5 (the last one short), then the list's 3")
                .containsExactly(5, 5, 5, 5, 3, 3);
        assertThat(pages.get()).as("pages of 7 read as the batches need them, and the empty page that ends the query")
                .isBetween(4, 6);
    }

    @Test
    void maxBatchesLeavesTheRestOfTheKeysetForTheNextRun() throws Exception {
        Work work = new Work((n, slice) -> null);
        RunFigures f;
        try (MaintenanceRun run = MaintenanceRun.open(pg.spec(), RunOptions.builder().maxBatches(2)
                .reconnectTimeout(Duration.ofSeconds(20)).build(), ProgressListener.NONE, new AtomicBoolean())) {
            BatchSource<Integer> ids = run.keyset("ids", 50, (c, last, limit) -> page(c, last, limit, 1000));
            assertThat(run.batchLoop(new BatchSizer(10), work).run(ids)).isEqualTo(20);
            f = run.figures();
        }
        assertThat(f.stopReason()).isEqualTo(RunFigures.StopReason.MAX_BATCHES);
        assertThat(work.committedSizes).containsExactly(10, 10);
    }
}
