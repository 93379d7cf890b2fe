package dev.ducklake.janitor.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;

/** Bytes written to {@code System.err} (slf4j-simple, the JVM) decoded as UTF-8 and handed to the log writer line by line. */
final class LogLineStream extends OutputStream {

    private final Writer log;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    LogLineStream(Writer log) {
        this.log = log;
    }

    @Override
    public synchronized void write(int b) throws IOException {
        line.write(b);
        if (b == '\n') {
            log.write(line.toString(StandardCharsets.UTF_8));
            line.reset();
        }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
        for (int i = off; i < off + len; i++) {
            write(b[i]);
        }
    }

    @Override
    public synchronized void flush() throws IOException {
        log.flush();
    }
}
