-- Files: file manager tree, file infos, chunked files, JSON tables, file results, GDPdU unpack jobs.
CREATE TABLE file_manager_entity (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  engagement_id text NOT NULL,
  parent_file_manager_entity_id text REFERENCES file_manager_entity (id) ON DELETE CASCADE,
  type text NOT NULL,
  name text NOT NULL,
  extension text,
  original_name text,
  file_info_id text,
  status text[] NOT NULL DEFAULT '{}',
  size bigint,
  content_type text,
  ready boolean NOT NULL DEFAULT true
);
CREATE INDEX file_manager_entity_engagement_id_idx ON file_manager_entity (engagement_id);
CREATE INDEX file_manager_entity_parent_idx ON file_manager_entity (parent_file_manager_entity_id);
CREATE INDEX file_manager_entity_type_idx ON file_manager_entity (type);
CREATE INDEX file_manager_entity_name_lower_idx ON file_manager_entity (lower(name) text_pattern_ops);
CREATE INDEX file_manager_entity_name_trgm_idx ON file_manager_entity USING gin (lower(name) gin_trgm_ops);
CREATE INDEX file_manager_entity_extension_lower_idx ON file_manager_entity (lower(extension) text_pattern_ops);
CREATE INDEX file_manager_entity_original_name_lower_idx ON file_manager_entity (lower(original_name) text_pattern_ops);
CREATE INDEX file_manager_entity_file_info_id_idx ON file_manager_entity (file_info_id);

CREATE TABLE file_info (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  file_manager_file_id text,
  name text NOT NULL,
  type text NOT NULL DEFAULT 'FILE_INFO',
  format text,
  format_detected boolean NOT NULL DEFAULT false,
  encoding text,
  delimiter text,
  first_line text,
  header_row_index integer,
  last_non_blank_row_index integer,
  row_content_snippets jsonb NOT NULL DEFAULT '[]',
  column_data jsonb NOT NULL DEFAULT '[]',
  table_metadata jsonb NOT NULL DEFAULT '{}',
  state text NOT NULL DEFAULT 'PENDING'
);
CREATE INDEX file_info_file_manager_file_id_idx ON file_info (file_manager_file_id);
CREATE INDEX file_info_type_idx ON file_info (type);
CREATE INDEX file_info_name_lower_idx ON file_info (lower(name) text_pattern_ops);

CREATE TABLE chunked_file (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  name text NOT NULL,
  size bigint NOT NULL
);
CREATE INDEX chunked_file_creation_date_idx ON chunked_file (creation_date);

CREATE TABLE chunked_file_part (
  chunked_file_id text NOT NULL REFERENCES chunked_file (id) ON DELETE CASCADE,
  "offset" bigint NOT NULL,
  size bigint NOT NULL,
  received_at timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (chunked_file_id, "offset")
);

CREATE TABLE json_table (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  headers text[] NOT NULL DEFAULT '{}',
  current_size bigint NOT NULL DEFAULT 0,
  page_count integer NOT NULL DEFAULT 0,
  row_count bigint NOT NULL DEFAULT 0
);
CREATE INDEX json_table_creation_date_idx ON json_table (creation_date);

CREATE TABLE file_result (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  file_name text NOT NULL,
  size bigint,
  content_type text,
  token_id text,
  ready boolean NOT NULL DEFAULT false
);

CREATE TABLE gdpdu_unpack_job (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  engagement_id text NOT NULL,
  file_manager_file_id text NOT NULL,
  parent_file_manager_entity_id text,
  name text NOT NULL,
  status text NOT NULL DEFAULT 'RUNNING',
  directory_id text,
  file_manager_file_ids text[] NOT NULL DEFAULT '{}',
  file_manager_directory_ids text[] NOT NULL DEFAULT '{}',
  tables jsonb NOT NULL DEFAULT '[]',
  error text
);
CREATE INDEX gdpdu_unpack_job_engagement_id_idx ON gdpdu_unpack_job (engagement_id);
CREATE INDEX gdpdu_unpack_job_file_manager_file_id_idx ON gdpdu_unpack_job (file_manager_file_id);
CREATE INDEX gdpdu_unpack_job_status_idx ON gdpdu_unpack_job (status);
