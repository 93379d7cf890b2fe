package dev.ducklake.janitor.testsupport;

import dev.ducklake.janitor.pg.Sql;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;

/**
 * A DuckLake 1.0 catalog (the real 0.4 fixture, migrated as DuckLake does) in a fresh schema, with helpers to add
 * file rows, queue rows and files on disk for the storage tests. Schema 0 'main' has path {@code main/}, table 1
 * has path {@code test/}, both relative.
 */
public final class FileCatalog {

    public final String schema;
    private long nextId = 1000;

    private FileCatalog(String schema) {
        this.schema = schema;
    }

    /** A new catalog whose data_path is the given text. */
    public static FileCatalog create(String prefix, String dataPath) throws SQLException {
        TestPostgres pg = TestPostgres.get();
        String schema = pg.freshSchema(prefix);
        try (Connection c = pg.connect()) {
            Catalogs.loadFixture04(c, schema);
            Catalogs.exec(c, "UPDATE " + Sql.qualified(schema, "ducklake_metadata") + " SET value = '1.0' WHERE key = 'version'");
            FileCatalog f = new FileCatalog(schema);
            f.setOption("data_path", dataPath);
            return f;
        }
    }

    public void setOption(String key, String value) throws SQLException {
        try (Connection c = TestPostgres.get().connect()) {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + Sql.qualified(schema, "ducklake_metadata") + " WHERE key = ?")) {
                ps.setString(1, key);
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + Sql.qualified(schema, "ducklake_metadata") + " VALUES (?, ?, NULL, NULL)")) {
                ps.setString(1, key);
                ps.setString(2, value);
                ps.executeUpdate();
            }
        }
    }

    public void addTable(long tableId, String path, boolean relative) throws SQLException {
        update("INSERT INTO " + Sql.qualified(schema, "ducklake_table") + " VALUES (?, gen_random_uuid(), 1, NULL, 0, ?, ?, ?)",
                tableId, "t" + tableId, path, relative);
    }

    public long dataFile(long tableId, String path, boolean relative) throws SQLException {
        long id = nextId++;
        update("INSERT INTO " + Sql.qualified(schema, "ducklake_data_file")
                + " (data_file_id, table_id, begin_snapshot, path, path_is_relative, file_format) VALUES (?, ?, 1, ?, ?, 'parquet')",
                id, tableId, path, relative);
        return id;
    }

    public long deleteFile(long tableId, String path, boolean relative) throws SQLException {
        long id = nextId++;
        update("INSERT INTO " + Sql.qualified(schema, "ducklake_delete_file")
                + " (delete_file_id, table_id, begin_snapshot, data_file_id, path, path_is_relative, format) VALUES (?, ?, 1, 0, ?, ?, 'puffin')",
                id, tableId, path, relative);
        return id;
    }

    /** A queue row (path relative to data_path when relative) scheduled {@code age} ago. */
    public long queue(String path, boolean relative, Duration age) throws SQLException {
        long id = nextId++;
        queue(id, path, relative, age);
        return id;
    }

    public void queue(long id, String path, Boolean relative, Duration age) throws SQLException {
        update("INSERT INTO " + Sql.qualified(schema, "ducklake_files_scheduled_for_deletion") + " VALUES (?, ?, ?, ?)",
                id, path, relative, Timestamp.from(Instant.now().minus(age)));
    }

    public long queueRows() throws SQLException {
        try (Connection c = TestPostgres.get().connect()) {
            return Catalogs.scalar(c, "SELECT count(*) FROM " + Sql.qualified(schema, "ducklake_files_scheduled_for_deletion"));
        }
    }

    private void update(String sql, Object... args) throws SQLException {
        try (Connection c = TestPostgres.get().connect(); PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            ps.executeUpdate();
        }
    }

    /** Writes a file with some bytes and sets its modification time {@code age} ago. */
    public static Path file(Path p, Duration age) throws IOException {
        Files.createDirectories(p.getParent());
        Files.write(p, new byte[] {1, 2, 3, 4, 5, 6, 7});
        Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(age)));
        return p;
    }
}
