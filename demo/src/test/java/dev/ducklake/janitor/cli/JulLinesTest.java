package dev.ducklake.janitor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 28 item 18: an exception logged through java.util.logging (Prometheus client_java's HTTP server) is one log
 * line per event, with the stack trace inside the one JSON object under --log-format json (the JDK's console handler
 * made ~29 lines of it, each its own JSON object).
 */
class JulLinesTest {

    @AfterEach
    void textAgain() {
        StructuredLog.format(StructuredLog.Format.text);
    }

    private static List<String> log(StructuredLog.Format format) {
        StructuredLog.format(format);
        StringWriter sink = new StringWriter();
        Logger logger = Logger.getAnonymousLogger();
        logger.setUseParentHandlers(false);
        logger.addHandler(new JulLines(new PrintWriter(new StructuredLog(sink), true)));
        logger.log(Level.SEVERE, "The Prometheus metrics HTTPServer caught an Exception while trying to send the metrics response.",
                new IOException("Broken pipe", new IllegalStateException("the client went away")));
        return sink.toString().lines().toList();
    }

    @Test
    void anExceptionIsOneJsonObjectWithItsStackTraceInside() throws Exception {
        List<String> lines = log(StructuredLog.Format.json);
        assertThat(lines).as("one line per event: %s", lines).hasSize(1);
        JsonNode o = new ObjectMapper().readTree(lines.get(0));
        assertThat(o.path("level").asText()).isEqualTo("error");
        assertThat(o.path("message").asText()).contains("HTTPServer caught an Exception").contains("java.io.IOException: Broken pipe");
        assertThat(o.path("stack_trace").asText()).contains("\tat ").contains("Caused by: java.lang.IllegalStateException");
    }

    @Test
    void inTextModeTooTheEventIsOneLine() {
        List<String> lines = log(StructuredLog.Format.text);
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).startsWith("error: ").contains("Broken pipe");
    }
}
