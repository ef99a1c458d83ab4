-- Issue 21: warehouse connections and their authorizations, discovery results and tables, data
-- catalog entries, data flows and data source import tasks.
CREATE TABLE connection (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  name text NOT NULL,
  type text NOT NULL,
  description text
);
CREATE INDEX connection_name_lower_idx ON connection (lower(name) text_pattern_ops);
CREATE INDEX connection_name_lower_order_idx ON connection (lower(name));
CREATE INDEX connection_type_idx ON connection (type);

CREATE TABLE warehouse_authorization (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  connection_id text NOT NULL REFERENCES connection (id) ON DELETE CASCADE ON UPDATE CASCADE,
  auth_type text NOT NULL,
  host text NOT NULL,
  http_path text NOT NULL,
  port integer,
  client_id text,
  secret_ciphertext text NOT NULL
);
CREATE UNIQUE INDEX warehouse_authorization_connection_id_key ON warehouse_authorization (connection_id);
CREATE INDEX warehouse_authorization_auth_type_idx ON warehouse_authorization (auth_type);

CREATE TABLE connection_test_result (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  connection_id text NOT NULL,
  success boolean NOT NULL,
  message text NOT NULL
);
CREATE INDEX connection_test_result_connection_id_idx ON connection_test_result (connection_id);
CREATE INDEX connection_test_result_creation_date_idx ON connection_test_result (creation_date);

CREATE TABLE connection_tables_result (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  connection_id text NOT NULL,
  success boolean NOT NULL,
  message text,
  total_tables integer NOT NULL
);
CREATE INDEX connection_tables_result_connection_id_idx ON connection_tables_result (connection_id);

CREATE TABLE connection_table (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  tables_result_id text NOT NULL,
  connection_id text NOT NULL REFERENCES connection (id) ON DELETE CASCADE ON UPDATE CASCADE,
  table_id text NOT NULL,
  name text NOT NULL,
  schema jsonb NOT NULL
);
CREATE UNIQUE INDEX connection_table_connection_id_table_id_key ON connection_table (connection_id, table_id);
CREATE INDEX connection_table_tables_result_id_idx ON connection_table (tables_result_id);
CREATE INDEX connection_table_table_id_lower_idx ON connection_table (lower(table_id) text_pattern_ops);
CREATE INDEX connection_table_name_lower_idx ON connection_table (lower(name) text_pattern_ops);

CREATE TABLE data_catalog_entry (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  name text NOT NULL,
  description text,
  source text NOT NULL,
  data_table_id text,
  connection_id text,
  table_id text,
  data_flow_id text,
  schema jsonb NOT NULL
);
CREATE INDEX data_catalog_entry_name_lower_idx ON data_catalog_entry (lower(name) text_pattern_ops);
CREATE INDEX data_catalog_entry_source_idx ON data_catalog_entry (source);
CREATE INDEX data_catalog_entry_connection_id_idx ON data_catalog_entry (connection_id);
CREATE INDEX data_catalog_entry_data_flow_id_idx ON data_catalog_entry (data_flow_id);
CREATE INDEX data_catalog_entry_data_table_id_idx ON data_catalog_entry (data_table_id);

CREATE TABLE data_flow (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  name text NOT NULL,
  description text,
  input_data_catalog_entry_id text NOT NULL,
  operations jsonb NOT NULL
);
CREATE INDEX data_flow_name_lower_idx ON data_flow (lower(name) text_pattern_ops);
CREATE INDEX data_flow_input_data_catalog_entry_id_idx ON data_flow (input_data_catalog_entry_id);

CREATE TABLE data_source_import_task (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  data_catalog_entry_id text,
  data_flow_id text,
  connection_id text,
  table_id text,
  engagement_id text NOT NULL,
  analysis_id text NOT NULL,
  status text NOT NULL,
  error text,
  row_count bigint NOT NULL DEFAULT 0,
  data_table_id text,
  plan jsonb NOT NULL
);
CREATE INDEX data_source_import_task_data_catalog_entry_id_idx ON data_source_import_task (data_catalog_entry_id);
CREATE INDEX data_source_import_task_analysis_id_idx ON data_source_import_task (analysis_id);
CREATE INDEX data_source_import_task_status_idx ON data_source_import_task (status);

CREATE SCHEMA IF NOT EXISTS imports;
