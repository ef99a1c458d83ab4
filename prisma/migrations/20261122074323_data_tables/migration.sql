-- Data tables (issue 5 point 8): definitions of queryable ledger-row tables. The rows themselves
-- live in plain-SQL tables (ingest.entries_<sourceId>) whose columns the definition describes.
CREATE TABLE data_table (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  engagement_id text NOT NULL REFERENCES engagement (id) ON DELETE CASCADE ON UPDATE CASCADE,
  analysis_id text NOT NULL REFERENCES analysis (id) ON DELETE CASCADE ON UPDATE CASCADE,
  analysis_source_id text,
  analysis_result_id text,
  logical_name text,
  type text,
  api_stability text NOT NULL,
  columns jsonb NOT NULL DEFAULT '[]',
  row_count bigint NOT NULL DEFAULT 0,
  table_name text NOT NULL
);
CREATE UNIQUE INDEX data_table_analysis_source_id_key ON data_table (analysis_source_id);
CREATE INDEX data_table_analysis_id_idx ON data_table (analysis_id);
CREATE INDEX data_table_engagement_id_idx ON data_table (engagement_id);
CREATE INDEX data_table_analysis_result_id_idx ON data_table (analysis_result_id);
CREATE INDEX data_table_logical_name_lower_idx ON data_table (lower(logical_name) text_pattern_ops);
CREATE INDEX data_table_type_lower_idx ON data_table (lower(type) text_pattern_ops);
CREATE INDEX data_table_api_stability_idx ON data_table (api_stability);
