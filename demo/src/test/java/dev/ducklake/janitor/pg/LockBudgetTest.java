package dev.ducklake.janitor.pg;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LockBudgetTest {

    @Test
    void stockPostgresAllows320() {
        LockBudget stock = new LockBudget(64, 100, 0);
        assertThat(stock.capacity()).isEqualTo(6400);
        assertThat(stock.cap()).isEqualTo(320);
        assertThat(stock.effective(500)).isEqualTo(320);
        assertThat(stock.effective(100)).isEqualTo(100);
    }

    @Test
    void clampsToTenAndTwoThousand() {
        assertThat(new LockBudget(10, 10, 0).cap()).as("tiny server").isEqualTo(10);
        assertThat(new LockBudget(4096, 5000, 100).cap()).as("huge server").isEqualTo(2000);
        assertThat(new LockBudget(64, 100, 100).cap()).as("prepared transactions count").isEqualTo(640);
    }
}
