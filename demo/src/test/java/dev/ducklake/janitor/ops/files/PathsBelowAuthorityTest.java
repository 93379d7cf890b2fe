package dev.ducklake.janitor.ops.files;

import dev.ducklake.janitor.storage.StorageLocation;
import dev.ducklake.janitor.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The near-match key is computed in Java (loading) and in SQL (the sorted merge): both give the same paths. */
class PathsBelowAuthorityTest {

    @Test
    void javaAndSqlAgree() throws Exception {
        List<String> samples = List.of("s3://b/lake/main/t/f.parquet", "file:///lake/main/f.parquet", "file:///C:/lake/f.parquet",
                "gs://b/f.parquet", "r2://b/", "https://b.s3.amazonaws.com/lake/f.parquet",
                "https://s3.us-east-1.amazonaws.com/b/lake/f.parquet", "http://host/f.parquet", "az://c@acct.blob.core.windows.net/x/y",
                "s3://b/a://b/c.parquet", "https://h/");
        try (Connection c = TestPostgres.get().connect();
             PreparedStatement ps = c.prepareStatement("SELECT " + KnownFiles.BELOW_AUTHORITY_SQL + ", "
                     + KnownFiles.BELOW_AUTHORITY_PATH_STYLE_SQL + " FROM (SELECT ?::text AS canon) x")) {
            for (String s : samples) {
                ps.setString(1, s);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    List<String> sql = new ArrayList<>();
                    sql.add(rs.getString(1));
                    if (rs.getString(2) != null) {
                        sql.add(rs.getString(2));
                    }
                    assertThat(StorageLocation.pathsBelowAuthority(s)).as(s).isEqualTo(sql);
                }
            }
        }
        assertThat(StorageLocation.pathsBelowAuthority("https://s3.amazonaws.com/b/lake/f")).containsExactly("b/lake/f", "lake/f");
        assertThat(StorageLocation.pathsBelowAuthority("file:///lake/f")).containsExactly("lake/f");
    }
}
