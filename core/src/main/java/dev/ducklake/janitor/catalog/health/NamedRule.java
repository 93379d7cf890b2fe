package dev.ducklake.janitor.catalog.health;

import java.util.List;

/**
 * Base of the check rules: holds the finding kind and the fix once, so that a rule class holds only its predicate
 * (in {@link #evaluate}) and the Javadoc that names its source.
 */
abstract class NamedRule implements CheckRule {

    private final String kind;
    private final String fix;

    /**
     * @param kind the snake_case finding kind (the contract name)
     * @param fix the fix shown with a finding
     */
    NamedRule(String kind, String fix) {
        this.kind = kind;
        this.fix = fix;
    }

    @Override
    public final String kind() {
        return kind;
    }

    @Override
    public final String fix() {
        return fix;
    }

    /** @return the finding of a catalog this rule does not apply to (count 0, no examples) */
    final Finding none() {
        return finding(0, List.of());
    }
}
