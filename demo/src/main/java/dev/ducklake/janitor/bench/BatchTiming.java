package dev.ducklake.janitor.bench;

/**
 * One committed batch of a benchmark variant.
 *
 * @param number the batch number, from 1
 * @param tables tables handled in the batch (dropped, skipped or already gone)
 * @param millis wall-clock duration of the batch transaction, milliseconds
 */
public record BatchTiming(int number, int tables, double millis) {
}
