-- Analysis sources (issue 5): the ingestion workflow's entity, and its transaction id previews.
CREATE TABLE analysis_source (
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
  analysis_period_id text,
  analysis_source_type_id text NOT NULL REFERENCES analysis_source_type (id),
  -- no foreign key: a file in use by a running source is protected by the delete guard, a finished
  -- source keeps its entries when the file goes
  file_manager_file_id text NOT NULL,
  workflow_state text NOT NULL DEFAULT 'STARTED',
  target_workflow_state text,
  warnings text[] NOT NULL DEFAULT '{}',
  warnings_ignored boolean NOT NULL DEFAULT false,
  errors text[] NOT NULL DEFAULT '{}',
  detected_format text,
  apply_degrouper boolean NOT NULL DEFAULT false,
  degrouper_applied boolean NOT NULL DEFAULT false,
  preset_header_row_index integer,
  additional_data_column_field text,
  file_info jsonb,
  column_mappings jsonb NOT NULL DEFAULT '[]',
  virtual_columns jsonb NOT NULL DEFAULT '[]',
  ambiguous_column_resolutions jsonb NOT NULL DEFAULT '[]',
  transaction_id_selection jsonb,
  proposed_column_mappings jsonb,
  proposed_virtual_columns jsonb,
  proposed_ambiguous_column_resolutions jsonb,
  proposed_transaction_id_selection jsonb,
  detection jsonb,
  stage jsonb,
  virtual_column_data jsonb,
  effective_dates jsonb,
  accounts jsonb,
  parse jsonb
);
CREATE INDEX analysis_source_analysis_idx ON analysis_source (analysis_id);
CREATE INDEX analysis_source_engagement_idx ON analysis_source (engagement_id);
CREATE INDEX analysis_source_period_idx ON analysis_source (analysis_period_id);
CREATE INDEX analysis_source_type_idx ON analysis_source (analysis_source_type_id);
CREATE INDEX analysis_source_file_idx ON analysis_source (file_manager_file_id);
CREATE INDEX analysis_source_workflow_state_idx ON analysis_source (workflow_state);
CREATE INDEX analysis_source_detected_format_idx ON analysis_source (detected_format);

CREATE TABLE transaction_id_preview (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  engagement_id text NOT NULL,
  analysis_id text NOT NULL,
  analysis_source_id text NOT NULL REFERENCES analysis_source (id) ON DELETE CASCADE ON UPDATE CASCADE,
  type text NOT NULL,
  column_selection integer[] NOT NULL DEFAULT '{}',
  virtual_column_selection integer[] NOT NULL DEFAULT '{}',
  smart_splitter boolean NOT NULL DEFAULT false,
  overall_rating text NOT NULL,
  indicators jsonb NOT NULL DEFAULT '{}',
  entry_previews jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX transaction_id_preview_source_idx ON transaction_id_preview (analysis_source_id);
CREATE INDEX transaction_id_preview_engagement_idx ON transaction_id_preview (engagement_id);
CREATE INDEX transaction_id_preview_analysis_idx ON transaction_id_preview (analysis_id);
CREATE INDEX transaction_id_preview_type_idx ON transaction_id_preview (type);
CREATE INDEX transaction_id_preview_rating_idx ON transaction_id_preview (overall_rating);
