package dev.ducklake.janitor.catalog;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class InlinedTableNameTest {

    @Test
    void exactDuckLakeNameIsAllowed() {
        assertThat(InlinedTableName.guardAllows("ducklake_inlined_data_12_3", 12L, 3L)).isTrue();
        assertThat(InlinedTableName.guardAllows("ducklake_inlined_data_0_0", 0L, 0L)).isTrue();
        assertThat(InlinedTableName.dataTable(9_223_372_036_854_775_807L, 9_223_372_036_854_775_807L).length())
                .as("the longest possible name fits PostgreSQL's 63-byte identifiers").isLessThanOrEqualTo(63);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "ducklake_inlined_data_12_3\n", "ducklake_inlined_data_12_3 ", " ducklake_inlined_data_12_3",
        "ducklake_inlined_data_12_3\"", "\"ducklake_inlined_data_12_3\"", "ducklake_inlined_data_12_3; DROP TABLE ducklake_snapshot; --",
        "\"; DROP TABLE ducklake_snapshot; --", "ducklake_inlined_data_12_4", "ducklake_inlined_data_13_3",
        "ducklake_inlined_data_012_3", "ducklake_inlined_data_12_03", "ducklake_inlined_data_١٢_3",
        "ducklake_inlined_data_tables", "ducklake_inlined_delete_12", "other.ducklake_inlined_data_12_3",
        "DUCKLAKE_INLINED_DATA_12_3", "ducklake_inlined_data_12_3_1", ""})
    void anythingElseIsRefused(String name) {
        assertThat(InlinedTableName.guardAllows(name, 12L, 3L)).as("name %s", name).isFalse();
    }

    @Test
    void nullAndNegativeIdsAreRefused() {
        assertThat(InlinedTableName.guardAllows(null, 1L, 1L)).isFalse();
        assertThat(InlinedTableName.guardAllows("ducklake_inlined_data_1_1", null, 1L)).isFalse();
        assertThat(InlinedTableName.guardAllows("ducklake_inlined_data_1_1", 1L, null)).isFalse();
        assertThat(InlinedTableName.guardAllows("ducklake_inlined_data_-1_1", -1L, 1L)).isFalse();
        assertThat(InlinedTableName.guardAllows("ducklake_inlined_data_1_-1", 1L, -1L)).isFalse();
    }

    @Test
    void parsesOnlyWholeNames() {
        assertThat(InlinedTableName.parseData("ducklake_inlined_data_7_2")).hasValueSatisfying(v -> assertThat(v).containsExactly(7, 2));
        assertThat(InlinedTableName.parseData("ducklake_inlined_data_7_2\n")).isEmpty();
        assertThat(InlinedTableName.parseData("ducklake_inlined_data_tables")).isEmpty();
        assertThat(InlinedTableName.parseData("ducklake_inlined_data_99999999999999999999_1")).as("overflow").isEmpty();
        assertThat(InlinedTableName.parseDelete("ducklake_inlined_delete_7")).hasValue(7);
        assertThat(InlinedTableName.parseDelete("ducklake_inlined_delete_7x")).isEmpty();
    }
}
