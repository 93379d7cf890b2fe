package dev.ducklake.janitor.catalog.health;

import java.sql.SQLException;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Base of the rules that only read one figure of drop-orphan-inline-tables' survey ({@link InlineSurvey}, taken once
 * per check and shared by these rules): the count and the examples of that figure.
 */
abstract class SurveyRule extends NamedRule {

    private final ToLongFunction<InlineSurvey.SurveyFigures> count;
    private final Function<InlineSurvey.SurveyFigures, List<String>> examples;

    /**
     * @param kind the snake_case finding kind
     * @param fix the fix shown with a finding
     * @param count the survey figure counted
     * @param examples the survey's examples of that figure
     */
    SurveyRule(String kind, String fix, ToLongFunction<InlineSurvey.SurveyFigures> count,
               Function<InlineSurvey.SurveyFigures, List<String>> examples) {
        super(kind, fix);
        this.count = count;
        this.examples = examples;
    }

    @Override
    public final Finding evaluate(CheckContext ctx) throws SQLException {
        InlineSurvey.SurveyFigures f = ctx.survey().get();
        return finding(count.applyAsLong(f), examples.apply(f));
    }
}
