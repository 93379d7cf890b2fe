package dev.ducklake.janitor.testsupport;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * Records every SQL string handed to JDBC by code that opens its connections through {@link DriverManager}
 * (the engine does, via {@code ConnectionSpec}), without any hook in the engine: while installed, the PostgreSQL
 * driver is replaced in {@link DriverManager} by a delegating driver whose connections and statements are
 * {@link Proxy proxies} that log the SQL text of {@code prepareStatement}, {@code prepareCall}, {@code execute*}
 * and {@code addBatch}. Values bound to parameters are not part of the SQL text and are not recorded.
 *
 * <p>Process-global while installed: use only in tests that run nothing else concurrently; always close.
 */
public final class SqlCapture implements AutoCloseable {

    private final List<String> statements = Collections.synchronizedList(new ArrayList<>());
    private final Driver real;
    private final Driver capturing;

    private SqlCapture() throws SQLException {
        this.real = DriverManager.getDriver("jdbc:postgresql://localhost/x");
        this.capturing = new CapturingDriver();
        DriverManager.deregisterDriver(real);
        DriverManager.registerDriver(capturing);
    }

    /** Installs the capture. */
    public static SqlCapture install() throws SQLException {
        return new SqlCapture();
    }

    /** The SQL strings recorded so far, in order. */
    public List<String> statements() {
        synchronized (statements) {
            return List.copyOf(statements);
        }
    }

    /** Forgets what was recorded. */
    public void clear() {
        statements.clear();
    }

    @Override
    public void close() throws SQLException {
        DriverManager.deregisterDriver(capturing);
        DriverManager.registerDriver(real);
    }

    private Object record(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
        String name = m.getName();
        if (args != null && args.length > 0 && args[0] instanceof String sql
                && (name.startsWith("prepare") || name.startsWith("execute") || name.equals("addBatch") || name.equals("nativeSQL"))) {
            statements.add(sql);
        }
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private Object wrap(Object target, Class<?> iface) {
        InvocationHandler h = (proxy, m, args) -> {
            Object result = record(target, m, args);
            if (result instanceof Statement && m.getReturnType().isInterface() && Statement.class.isAssignableFrom(m.getReturnType())) {
                return wrap(result, m.getReturnType());
            }
            return result;
        };
        return Proxy.newProxyInstance(SqlCapture.class.getClassLoader(), new Class<?>[] {iface}, h);
    }

    private final class CapturingDriver implements Driver {
        @Override
        public Connection connect(String url, Properties info) throws SQLException {
            Connection c = real.connect(url, info);
            return c == null ? null : (Connection) wrap(c, Connection.class);
        }

        @Override
        public boolean acceptsURL(String url) throws SQLException {
            return real.acceptsURL(url);
        }

        @Override
        public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) throws SQLException {
            return real.getPropertyInfo(url, info);
        }

        @Override
        public int getMajorVersion() {
            return real.getMajorVersion();
        }

        @Override
        public int getMinorVersion() {
            return real.getMinorVersion();
        }

        @Override
        public boolean jdbcCompliant() {
            return real.jdbcCompliant();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return real.getParentLogger();
        }
    }
}
