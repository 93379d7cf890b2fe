-- Copied from the project's shared notes (shared/fixtures/ducklake-1.0-schema.sql), written from the DuckLake 1.0 specification.
-- DuckLake catalog format 1.0 (identical layout to 0.4): the catalog tables as DuckLake creates them on PostgreSQL.
-- Written from the DuckLake specification and source (see ../ducklake/catalog.md). Unqualified: set search_path first.
-- A new catalog also gets: snapshot (0, now(), 0, 1, 0); snapshot_changes (0, 'created_schema:"main"', NULL, NULL, NULL);
-- metadata version/created_by/data_path/encrypted; schema (0, <uuid>, 0, NULL, 'main', 'main/', true).
CREATE TABLE ducklake_metadata(key varchar NOT NULL, value varchar NOT NULL, scope varchar, scope_id bigint);
CREATE TABLE ducklake_snapshot(snapshot_id bigint PRIMARY KEY, snapshot_time timestamptz, schema_version bigint,
    next_catalog_id bigint, next_file_id bigint);
CREATE TABLE ducklake_snapshot_changes(snapshot_id bigint PRIMARY KEY, changes_made varchar, author varchar,
    commit_message varchar, commit_extra_info varchar);
CREATE TABLE ducklake_schema(schema_id bigint PRIMARY KEY, schema_uuid uuid, begin_snapshot bigint, end_snapshot bigint,
    schema_name varchar, path varchar, path_is_relative boolean);
CREATE TABLE ducklake_table(table_id bigint, table_uuid uuid, begin_snapshot bigint, end_snapshot bigint,
    schema_id bigint, table_name varchar, path varchar, path_is_relative boolean);
CREATE TABLE ducklake_view(view_id bigint, view_uuid uuid, begin_snapshot bigint, end_snapshot bigint,
    schema_id bigint, view_name varchar, dialect varchar, sql varchar, column_aliases varchar);
CREATE TABLE ducklake_tag(object_id bigint, begin_snapshot bigint, end_snapshot bigint, key varchar, value varchar);
CREATE TABLE ducklake_column_tag(table_id bigint, column_id bigint, begin_snapshot bigint, end_snapshot bigint,
    key varchar, value varchar);
CREATE TABLE ducklake_data_file(data_file_id bigint PRIMARY KEY, table_id bigint, begin_snapshot bigint,
    end_snapshot bigint, file_order bigint, path varchar, path_is_relative boolean, file_format varchar,
    record_count bigint, file_size_bytes bigint, footer_size bigint, row_id_start bigint, partition_id bigint,
    encryption_key varchar, mapping_id bigint, partial_max bigint);
CREATE TABLE ducklake_file_column_stats(data_file_id bigint, table_id bigint, column_id bigint,
    column_size_bytes bigint, value_count bigint, null_count bigint, min_value varchar, max_value varchar,
    contains_nan boolean, extra_stats varchar);
CREATE TABLE ducklake_file_variant_stats(data_file_id bigint, table_id bigint, column_id bigint, variant_path varchar,
    shredded_type varchar, column_size_bytes bigint, value_count bigint, null_count bigint, min_value varchar,
    max_value varchar, contains_nan boolean, extra_stats varchar);
CREATE TABLE ducklake_delete_file(delete_file_id bigint PRIMARY KEY, table_id bigint, begin_snapshot bigint,
    end_snapshot bigint, data_file_id bigint, path varchar, path_is_relative boolean, format varchar,
    delete_count bigint, file_size_bytes bigint, footer_size bigint, encryption_key varchar, partial_max bigint);
CREATE TABLE ducklake_column(column_id bigint, begin_snapshot bigint, end_snapshot bigint, table_id bigint,
    column_order bigint, column_name varchar, column_type varchar, initial_default varchar, default_value varchar,
    nulls_allowed boolean, parent_column bigint, default_value_type varchar, default_value_dialect varchar);
CREATE TABLE ducklake_table_stats(table_id bigint, record_count bigint, next_row_id bigint, file_size_bytes bigint);
CREATE TABLE ducklake_table_column_stats(table_id bigint, column_id bigint, contains_null boolean,
    contains_nan boolean, min_value varchar, max_value varchar, extra_stats varchar);
CREATE TABLE ducklake_partition_info(partition_id bigint, table_id bigint, begin_snapshot bigint, end_snapshot bigint);
CREATE TABLE ducklake_partition_column(partition_id bigint, table_id bigint, partition_key_index bigint,
    column_id bigint, transform varchar);
CREATE TABLE ducklake_file_partition_value(data_file_id bigint, table_id bigint, partition_key_index bigint,
    partition_value varchar);
CREATE TABLE ducklake_files_scheduled_for_deletion(data_file_id bigint, path varchar, path_is_relative boolean,
    schedule_start timestamptz);
CREATE TABLE ducklake_inlined_data_tables(table_id bigint, table_name varchar, schema_version bigint);
CREATE TABLE ducklake_column_mapping(mapping_id bigint, table_id bigint, type varchar);
CREATE TABLE ducklake_name_mapping(mapping_id bigint, column_id bigint, source_name varchar, target_field_id bigint,
    parent_column bigint, is_partition boolean);
CREATE TABLE ducklake_schema_versions(begin_snapshot bigint, schema_version bigint, table_id bigint);
CREATE TABLE ducklake_macro(schema_id bigint, macro_id bigint, macro_name varchar, begin_snapshot bigint,
    end_snapshot bigint);
CREATE TABLE ducklake_macro_impl(macro_id bigint, impl_id bigint, dialect varchar, sql varchar, type varchar);
CREATE TABLE ducklake_macro_parameters(macro_id bigint, impl_id bigint, column_id bigint, parameter_name varchar,
    parameter_type varchar, default_value varchar, default_value_type varchar);
CREATE TABLE ducklake_sort_info(sort_id bigint, table_id bigint, begin_snapshot bigint, end_snapshot bigint);
CREATE TABLE ducklake_sort_expression(sort_id bigint, table_id bigint, sort_key_index bigint, expression varchar,
    dialect varchar, sort_direction varchar, null_order varchar);
