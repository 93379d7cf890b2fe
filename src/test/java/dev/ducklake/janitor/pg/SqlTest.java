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
}
