package dev.ducklake.janitor.pg;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SqlTest {

    @Test
    void quotesAndDoublesEmbeddedQuotes() {
        assertThat(Sql.ident("public")).isEqualTo("\"public\"");
        assertThat(Sql.ident("a\"b")).isEqualTo("\"a\"\"b\"");
        assertThat(Sql.ident("\"; DROP TABLE x; --")).isEqualTo("\"\"\"; DROP TABLE x; --\"");
        assertThat(Sql.qualified("My Schema", "t")).isEqualTo("\"My Schema\".\"t\"");
    }

    @Test
    void refusesWhatPostgresCannotName() {
        assertThatThrownBy(() -> Sql.ident("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Sql.ident(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Sql.ident("a\0b")).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * The re-trial of 2026-12-06 (stop 38): a queued or mounted path with a newline printed raw in a file event line,
     * splitting it into two (one forged). A line-safe path is unchanged unless it holds such a character.
     */
    @Test
    void lineSafeEscapesOnlyWhatWouldSplitOrRewriteALine() {
        assertThat(Sql.lineSafe("/lake/main/t/a b.parquet")).isEqualTo("/lake/main/t/a b.parquet");
        assertThat(Sql.lineSafe("C:\\lake\\f.parquet")).as("a backslash alone stays").isEqualTo("C:\\lake\\f.parquet");
        assertThat(Sql.lineSafe("/lake/nl\ndeleted\t/etc/passwd")).isEqualTo("/lake/nl\\ndeleted\\t/etc/passwd")
                .doesNotContain("\n");
        assertThat(Sql.lineSafe("a\\b\rc\u202e")).isEqualTo("a\\\\b\\rc\\u202e");
    }
}
