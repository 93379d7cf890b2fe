package dev.ducklake.janitor.interop;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ducklake.janitor.cli.Main;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 26, the snowball of split passes: a table of 40 small files written by real DuckLake 1.5.5 is one merge step
 * at its target, so {@code --max-input-files 4} splits it; after the first pass, each split pass leaves the earlier
 * passes' outputs out ({@code max_file_size}) instead of letting the first output start every step. Every step binds
 * at most 4 inputs, the run takes far fewer passes than the plain split (which took one new file per pass once the
 * first output sorted first), and the table ends where DuckLake's own uncapped merge ends.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CompactSplitPassesInteropTest {

    private static final int FILES = 40;
    private static final int CAP = 4;

    private ExpireTwins twins;
    private long newest;

    @BeforeAll
    void writeCatalog() throws Exception {
        RealDuckLake.require();
        twins = new ExpireTwins("csplit");
        List<String> sql = new ArrayList<>(List.of("CREATE TABLE lake.many(id INTEGER, v VARCHAR)"));
        for (int i = 0; i < FILES; i++) {
            sql.add("INSERT INTO lake.many SELECT " + i + " * 10 + r, 'v' || r FROM range(10) x(r)");
        }
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(twins.source).inliningRowLimit(0))
                .sql(sql.toArray(new String[0]))).assertOk();
        newest = twins.newestSnapshot(twins.source);
    }

    @AfterAll
    void dropDatabases() {
        if (twins != null) {
            twins.close();
        }
    }


    @Test
    void splitPassesLeaveEarlierOutputsOutAndEndWhereDuckLakeEnds() throws Exception {
        String b = twins.copy("cap");
        List<String> args = List.of("compact", "--catalog", twins.catalogArg(b), "--metadata-schema", ExpireTwins.SCHEMA, "--output", "json",
                "--yes", "--duckdb-extension-dir", RealDuckLake.require().extensionFilesRoot().toString(), "--max-input-files",
                Integer.toString(CAP));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(args.toArray(new String[0]), new PrintWriter(out), new PrintWriter(err));
        assertThat(code).as(err + "\n" + out).isZero();
        JsonNode j = RealDuckLake.JSON.readTree(out.toString());
        JsonNode t = j.path("tables").get(0);
        assertThat(t.path("status").asText()).isEqualTo("done");
        int passes = t.path("passes").asInt();
        int stepMax = 0;
        int steps = 0;
        for (JsonNode row : t.path("output")) {
            String[] f = row.asText().split("\\|");
            stepMax = Math.max(stepMax, Integer.parseInt(f[2]));
            steps++;
        }
        System.out.printf("CompactSplitPassesInteropTest: %d files, cap %d: %d passes, %d merge steps, largest %d inputs%n",
                FILES, CAP, passes, steps, stepMax);
        assertThat(stepMax).as("no step binds more than --max-input-files").isBetween(2, CAP);
        // 40 files in steps of 4: 10 first-tier passes, then their 10 outputs in a few more (13); the plain split took more
        // passes here (measured: 25; after the first pass, its output started every step and took one or two new files)
        assertThat(passes).as("passes").isLessThanOrEqualTo(FILES / CAP + 6);

        String own = twins.copy("own");
        RealDuckLake.require().run(RealDuckLake.program().attach(twins.attach(own)).sql("CALL ducklake_merge_adjacent_files('lake')"))
                .assertOk();
        Map<String, String> live = CompactDifferentialInteropTest.liveFiles(twins, b);
        assertThat(live).isEqualTo(CompactDifferentialInteropTest.liveFiles(twins, own))
                .isNotEqualTo(CompactDifferentialInteropTest.liveFiles(twins, twins.source));
        assertThat(live.get("many")).isEqualTo("1|" + FILES * 10);
        assertThat(rows(b)).isEqualTo(rows(own)).isEqualTo(rows(twins.source));
    }

    /** The table's rows at every snapshot from its creation on, and at the newest, as DuckLake reads them. */
    private Map<String, JsonNode> rows(String db) {
        RealDuckLake.Program prog = RealDuckLake.program().attach(twins.attach(db));
        for (long s = 1; s <= newest; s++) {
            prog.query("many@" + s, "SELECT * FROM lake.many AT (VERSION => " + s + ") ORDER BY ALL");
        }
        prog.query("many@newest", "SELECT * FROM lake.many ORDER BY ALL");
        return RealDuckLake.require().run(prog).assertOk().namedRows();
    }
}
