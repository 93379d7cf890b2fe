package dev.ducklake.janitor.badinput;

import dev.ducklake.janitor.JanitorException;
import dev.ducklake.janitor.api.Janitor;
import dev.ducklake.janitor.testsupport.CliRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A password holding any special character, written raw (not percent-encoded, not quoted), percent-encoded or quoted,
 * in every connection-string form the tool reads, never appears (whole or any piece of it of 3 characters or more)
 * in stdout, stderr or the JSON document of {@code check}, of {@code maintain --config}, nor in the library's error
 * message. Found by a trial: {@code postgresql://jan:Xy7/kLm+Q9@127.0.0.1:55471/lake1} was refused with
 * "Invalid port 'Xy7'", {@code jan:12345/kLmQ9@…} printed {@code "database" : "kLmQ9@127.0.0.1:55471/lake1"}.
 * Unreachable port 1 only: nothing here needs a server.
 */
public class SpecialCharacterPasswordTest {

    /** One password per special character (and a few together); pieces are distinct made-up words. */
    public static final List<String> PASSWORDS = List.of("Xy7/kLm+Q9", "Xy7?kLmQ9", "12345/kLmQ9", "Xy7#kLm", "Xy7@kLm", "Xy7%kLm",
            "Xy7:kLm", "Xy7 kLm", "Xy7[kLm]Q9", "Xy7&kLm=Q9", "Xy7'kLm\"Q9", "Xy7\\kLm", "Xy7,kLm;Q9!", "Xy7{kLm}|Q9^",
            "Xy7<kLm>Q9`", "Xy7%41kLm", "Xy7$kLm~Q9*", "/Xy7kLm@", "Xy7@kLm/Zq4?Wv8#Tr5");

    /** A password percent-encoded for a URI (space as %20, never '+'). */
    public static String encoded(String p) {
        return URLEncoder.encode(p, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** A password quoted for a libpq key/value string. */
    public static String quoted(String p) {
        return "'" + p.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    /** Every accepted form, raw and written correctly. */
    static final List<UnaryOperator<String>> FORMS = List.of(
            p -> "postgresql://jan:" + p + "@127.0.0.1:1/lake1?connect_timeout=2",
            p -> "postgres://jan:" + p + "@127.0.0.1:1/lake1",
            p -> "jdbc:postgresql://jan:" + p + "@127.0.0.1:1/lake1",
            p -> "postgresql://jan:" + encoded(p) + "@127.0.0.1:1/lake1",
            p -> "postgresql://jan@127.0.0.1:1/lake1?password=" + p,
            p -> "postgresql://jan@127.0.0.1:1/lake1?password=" + p + "&connect_timeout=2",
            p -> "postgresql://jan@127.0.0.1:1/lake1?password=" + encoded(p),
            p -> "jdbc:postgresql://127.0.0.1:1/lake1?user=jan&password=" + p,
            p -> "jdbc:postgresql://127.0.0.1:1/lake1?user=jan&password=" + encoded(p) + "&sslmode=disable",
            p -> "host=127.0.0.1 port=1 dbname=lake1 user=jan password=" + p,
            p -> "password=" + p + " host=127.0.0.1 port=1 dbname=lake1",
            p -> "host=127.0.0.1 port=1 dbname=lake1 user=jan password=" + quoted(p),
            p -> "host=127.0.0.1 port=1 password='" + p,
            p -> "host=127.0.0.1 port=1 password='" + p + "' dbname=lake1",
            p -> "ducklake:postgres:host=127.0.0.1 port=1 user=jan password=" + p,
            p -> "ducklake:postgres:host=127.0.0.1 port=1 user=jan password=" + quoted(p),
            p -> "ducklake:postgres:postgresql://jan:" + p + "@127.0.0.1:1/lake1",
            p -> "ducklake:postgres:postgresql://jan:" + encoded(p) + "@127.0.0.1:1/lake1",
            p -> "postgres:host=127.0.0.1 port=1 password=" + quoted(p),
            p -> "postgresql://jan:" + p + "@127.0.0.1:1/lake1?bogus=1",
            p -> "postgresql://jan:" + p + "@127.0.0.1:notaport/lake1");

    private static final Pattern SPECIAL = Pattern.compile("[^A-Za-z0-9]+");

    /** The password and each of its pieces between special characters of 3 characters or more. */
    static List<String> secrets(String p) {
        List<String> out = new ArrayList<>(List.of(p));
        for (String piece : SPECIAL.split(p)) {
            if (piece.length() >= 3) {
                out.add(piece);
            }
        }
        return out;
    }

    /** Asserts that no secret of {@code p} is in {@code text} (a digit-only piece as a whole number, outside timestamps). */
    static void assertNoPiece(String text, String p, String what) {
        String withoutLongNumbers = text.replaceAll("[0-9]{6,}", "#");
        for (String s : secrets(p)) {
            if (s.matches("[0-9]+")) {
                assertThat(Pattern.compile("(?<![0-9])" + s + "(?![0-9])").matcher(withoutLongNumbers).find())
                        .as("%s: the piece %s of the password appears in:%n%s", what, s, text).isFalse();
            } else {
                assertThat(text).as("%s: the password or its piece %s", what, s).doesNotContain(s);
            }
        }
    }

    private static void assertClean(CliRun run, String p, String what) {
        assertThat(run.exitCode()).as("%s fails cleanly: %s", what, run).isIn(2, 3, 11);
        assertThat(run.err()).as("%s: no bug", what).doesNotContain("This is a bug");
        assertNoPiece(run.all(), p, what);
    }

    @Test
    void checkNeverShowsAPieceOfThePasswordInAnyFormOrOutput() {
        for (String p : PASSWORDS) {
            for (UnaryOperator<String> form : FORMS) {
                String conn = form.apply(p);
                assertClean(CliRun.run(Map.of(), "check", "--catalog", conn, "--metadata-schema", "a"), p, "check " + conn);
                assertClean(CliRun.run(Map.of(), "check", "--catalog", conn, "--metadata-schema", "a", "--output", "json",
                        "--log-format", "json"), p, "check json " + conn);
            }
        }
    }

    @Test
    void maintainConfigAndTheLibraryNeverShowAPieceOfThePassword(@TempDir Path tmp) throws Exception {
        Path cfg = tmp.resolve("m.yaml");
        for (String p : PASSWORDS) {
            for (UnaryOperator<String> form : FORMS) {
                String conn = form.apply(p);
                Files.writeString(cfg, "catalogs:\n  - name: lake\n    connection: '" + conn.replace("'", "''")
                        + "'\n    metadata_schema: a\nmaintain:\n  - check\n");
                assertClean(CliRun.run(Map.of(), "maintain", "--config", cfg.toString(), "--output", "json"), p, "maintain " + conn);
                try {
                    Janitor j = Janitor.on(conn, "a");
                    assertNoPiece(j.toString(), p, "Janitor.on " + conn);
                    j.check().statementTimeout(java.time.Duration.ofSeconds(5)).execute();
                } catch (JanitorException e) {
                    assertNoPiece(e.getMessage(), p, "Janitor.on " + conn);
                }
            }
        }
    }

    @Test
    void aRawSlashQuestionMarkOrHashInTheUserInfoIsRefusedWithTheFixAndNothingElseTried() {
        for (String conn : List.of("postgresql://jan:Xy7/kLm+Q9@127.0.0.1:55471/lake1", "postgresql://jan:Xy7?kLmQ9@127.0.0.1:55471/lake1",
                "postgresql://jan:12345/kLmQ9@127.0.0.1:55471/lake1", "postgresql://jan:Xy7#kLm@127.0.0.1:55471/lake1",
                "jdbc:postgresql://jan:Xy7/kLm@127.0.0.1:55471/lake1", "ducklake:postgres:postgres://jan:Xy7?kLm@127.0.0.1:55471/lake1")) {
            CliRun run = CliRun.run(Map.of(), "check", "--catalog", conn, "--metadata-schema", "a", "--output", "json");
            assertThat(run.exitCode()).as("a usage error, no login tried: %s", run).isEqualTo(2);
            assertThat(run.json().path("message").asText()).as(conn).contains("percent-encode the password")
                    .contains("%2F").contains("%3F").contains("%23").contains("%40").contains("PGPASSWORD")
                    .contains("--password-file").contains(".pgpass");
            assertThat(run.json().path("catalog").has("database")).as("no database read from a mangled URI").isFalse();
        }
    }
}
