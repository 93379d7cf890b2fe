package dev.ducklake.janitor.faults;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTables;
import dev.ducklake.janitor.ops.droporphaninline.DropOrphanInlineTablesOptions;
import dev.ducklake.janitor.ops.runtime.ProgressListener;
import dev.ducklake.janitor.testsupport.DedicatedPostgres;
import dev.ducklake.janitor.testsupport.FaultCatalog;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Found by trying it: SIGTERM while the server was down kept reconnecting for the whole --reconnect-timeout (60 s
 * by default), so the stop hook gave up after 30 s and Kubernetes would SIGKILL. A stop requested while
 * reconnecting (no batch in flight) now ends the run at once, with the committed work kept.
 */
class StopWhileReconnectingTest {

    @Test
    void stopRequestedWhileTheServerIsDownEndsTheRunPromptly() throws Exception {
        try (DedicatedPostgres pg = DedicatedPostgres.start(java.util.Map.of(), null)) {
            FaultCatalog cat;
            try (Connection c = pg.connect()) {
                cat = FaultCatalog.build(c, "lake_stop", 60);
            }
            CountDownLatch reconnecting = new CountDownLatch(1);
            ProgressListener listener = new ProgressListener() {
                @Override
                public void batch(BatchProgress b) {
                    if (b.number() == 2) {
                        try {
                            pg.stop();
                        } catch (Exception e) {
                            throw new RuntimeException(e);
                        }
                    }
                }

                @Override
                public void warn(String message) {
                    if (message.contains("reconnecting")) {
                        reconnecting.countDown();
                    }
                }
            };
            DropOrphanInlineTables op = new DropOrphanInlineTables(pg.spec(), DropOrphanInlineTablesOptions.builder()
                    .metadataSchema(cat.schema).batchSize(10).reconnectTimeout(Duration.ofSeconds(60)).build(), listener);
            CompletableFuture<Object> run = CompletableFuture.supplyAsync(() -> {
                try {
                    return op.execute();
                } catch (JanitorException e) {
                    throw new RuntimeException(e);
                }
            });
            assertThat(reconnecting.await(60, TimeUnit.SECONDS)).as("the run notices the lost server").isTrue();
            Thread.sleep(1500); // inside the reconnect backoff
            long t0 = System.nanoTime();
            op.requestStop();
            assertThat(op.awaitFinished(Duration.ofSeconds(20))).as("the run ends soon after the stop request").isTrue();
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertThat(seconds).as("seconds from the stop request to the end of the run").isLessThan(5);
            assertThatThrownBy(() -> run.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().cause().isInstanceOfSatisfying(JanitorException.class, e -> {
                        assertThat(e.reason()).isEqualTo(JanitorException.Reason.CONNECTION);
                        assertThat(e.getMessage()).contains("while reconnecting").contains("rerun to resume");
                    });
            pg.start();
            try (Connection c = pg.connect()) {
                assertThat(cat.check(c)).as("the two committed batches stay committed").hasSize(20);
            }
        }
    }
}
