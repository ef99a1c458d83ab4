-- Saved filters, populations and risk segmentation configs (spec 2.9, 2.12). Conditions are kept as
-- JSON (their shape is checked by the service); scope columns are indexed for the /query endpoints.

CREATE TABLE saved_filter (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  name jsonb NOT NULL,
  category jsonb,
  filter_type text NOT NULL,
  data_type text NOT NULL,
  library_id text,
  organization_id text,
  engagement_id text,
  analysis_type_id text,
  condition jsonb,
  display_currency_code text,
  display_locale text,
  legacy_filter_format boolean NOT NULL DEFAULT false
);
CREATE INDEX saved_filter_filter_type_idx ON saved_filter (filter_type);
CREATE INDEX saved_filter_data_type_idx ON saved_filter (data_type);
CREATE INDEX saved_filter_library_id_idx ON saved_filter (library_id);
CREATE INDEX saved_filter_organization_id_idx ON saved_filter (organization_id);
CREATE INDEX saved_filter_engagement_id_idx ON saved_filter (engagement_id);
CREATE INDEX saved_filter_analysis_type_id_idx ON saved_filter (analysis_type_id);

CREATE TABLE population (
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
  category text,
  library_id text,
  engagement_id text,
  analysis_id text,
  analysis_type_id text,
  base_population_id text,
  cloned_from text,
  condition jsonb,
  disabled boolean NOT NULL DEFAULT false,
  disabled_for_analysis_ids text[] NOT NULL DEFAULT '{}',
  derived_from_library boolean NOT NULL DEFAULT false,
  derived_from_engagement boolean NOT NULL DEFAULT false,
  promoted_from_analysis_id text,
  reason_for_change text,
  display_currency_code text,
  display_locale text,
  legacy_filter_format boolean NOT NULL DEFAULT false
);
CREATE INDEX population_name_lower_idx ON population (lower(name) text_pattern_ops);
CREATE INDEX population_library_id_idx ON population (library_id);
CREATE INDEX population_engagement_id_idx ON population (engagement_id);
CREATE INDEX population_analysis_id_idx ON population (analysis_id);
CREATE INDEX population_base_population_id_idx ON population (base_population_id);

CREATE TABLE risk_segmentation_config (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  name text NOT NULL,
  analysis_id text NOT NULL,
  analysis_result_id text NOT NULL,
  data_table_logical_name text NOT NULL,
  risk_score_id text NOT NULL,
  segments jsonb NOT NULL,
  summary_columns text[] NOT NULL DEFAULT '{}',
  dashboard_filters jsonb
);
CREATE INDEX risk_segmentation_config_analysis_id_idx ON risk_segmentation_config (analysis_id);
CREATE INDEX risk_segmentation_config_analysis_result_id_idx ON risk_segmentation_config (analysis_result_id);
