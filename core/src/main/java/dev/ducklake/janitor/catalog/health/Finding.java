package dev.ducklake.janitor.catalog.health;

import java.util.List;

/**
 * One kind of catalog damage found by a {@link CheckRule} ({@code check}, the {@code ducklake_check_findings} gauge): how much of it there is, a few examples, and what fixes it.
 *
 * @param kind the finding kind, snake_case (the contract: the same name is the {@code kind} label of the
 *     {@code ducklake_check_findings} gauge)
 * @param count how many rows / tables / relations of this kind (the unit is named by the rule's Javadoc)
 * @param examples at most a few examples, human-readable, catalog strings escaped; empty when the rule cannot name any
 * @param fix the command that fixes it, or why nothing should be done automatically
 */
public record Finding(String kind, long count, List<String> examples, String fix) {

    /** @return {@code damage} or {@code debris} ({@link CheckRules#severityOf}) */
    @com.fasterxml.jackson.annotation.JsonProperty("severity")
    public String severity() {
        return CheckRules.severityOf(kind);
    }

    /** @throws NullPointerException when a component is null */
    public Finding {
        examples = List.copyOf(examples);
        java.util.Objects.requireNonNull(kind);
        java.util.Objects.requireNonNull(fix);
    }
}
