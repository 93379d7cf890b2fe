package dev.ducklake.janitor.cli;

import dev.ducklake.janitor.ops.runtime.MaintenanceResult;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 25: the figures a command's multi-schema text total lists ({@link OperationAdapter#totalFields}) are JSON
 * fields of its result type, in a dry run and in an execute run: a renamed component or done/would key fails here
 * instead of silently leaving a line out of the total.
 */
class TotalFieldsTest {

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void everyTotalFigureIsAJsonFieldOfTheResult(boolean dryRun) throws Exception {
        int checked = 0;
        for (Operations.Operation o : Operations.ALL) {
            if (!(o.newCommand() instanceof MaintenanceCommand<?> command)) {
                continue;
            }
            Object result = sample(command.resultType(), dryRun);
            assertThat(result).isInstanceOf(MaintenanceResult.class);
            @SuppressWarnings("unchecked")
            Map<String, Object> json = Render.JSON.convertValue(result, Map.class);
            assertThat(json.keySet()).as("%s: the figures of its %s total", o.name(), dryRun ? "dry-run" : "execute")
                    .containsAll(command.totalFields(dryRun));
            checked++;
        }
        assertThat(checked).as("every operation but check").isEqualTo(Operations.ALL.size() - 1);
    }

    /** A record of the type with every component at a neutral value (numbers 0, text "x", lists empty), dryRun as given. */
    private static Object sample(Class<?> type, boolean dryRun) throws Exception {
        RecordComponent[] components = type.getRecordComponents();
        List<Object> args = new ArrayList<>();
        Class<?>[] types = new Class<?>[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            args.add(components[i].getName().equals("dryRun") ? dryRun : value(types[i], dryRun));
        }
        Constructor<?> c = type.getDeclaredConstructor(types);
        c.setAccessible(true);
        return c.newInstance(args.toArray());
    }

    private static Object value(Class<?> t, boolean dryRun) throws Exception {
        if (t == boolean.class || t == Boolean.class) {
            return false;
        }
        if (t == int.class || t == Integer.class) {
            return 0;
        }
        if (t == long.class || t == Long.class) {
            return 0L;
        }
        if (t == double.class || t == Double.class) {
            return 0.0;
        }
        if (t == String.class) {
            return "x";
        }
        if (t == List.class) {
            return List.of();
        }
        if (t == Map.class) {
            return Map.of();
        }
        if (t.isEnum()) {
            return t.getEnumConstants()[0];
        }
        if (t.isRecord()) {
            return sample(t, dryRun);
        }
        return null;
    }
}
