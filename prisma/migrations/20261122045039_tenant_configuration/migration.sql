-- Tenant configuration: the analysis catalogue, libraries, analysis type configurations, analyses
-- (periods, results), reporting period configurations and risk ranges. The catalogue rows are
-- inserted by the next migration. Queryable string columns get lower() indexes (case-insensitive
-- comparisons), id columns plain ones.

CREATE TABLE analysis_type (
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
  archived boolean NOT NULL DEFAULT false,
  interim_name text,
  interim_supported boolean NOT NULL DEFAULT false,
  periodic_supported boolean NOT NULL DEFAULT false,
  fund_supported boolean NOT NULL DEFAULT false,
  account_mapping_required boolean NOT NULL DEFAULT false,
  max_period integer NOT NULL DEFAULT 1,
  source_configurations jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX analysis_type_name_lower_idx ON analysis_type (lower(name) text_pattern_ops);

CREATE TABLE analysis_source_type (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  name text NOT NULL,
  interim_name text,
  archived boolean NOT NULL DEFAULT false,
  features text[] NOT NULL DEFAULT '{}',
  column_definitions jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX analysis_source_type_name_lower_idx ON analysis_source_type (lower(name) text_pattern_ops);

CREATE TABLE library (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  name text NOT NULL,
  based_on_library_id text,
  original_system_library_id text,
  account_grouping_id text,
  analysis_type_ids text[] NOT NULL DEFAULT '{}',
  archived boolean NOT NULL DEFAULT false,
  system boolean NOT NULL DEFAULT false,
  default_delimiter text,
  risk_score_display text NOT NULL DEFAULT 'HIGH_MEDIUM_LOW',
  control_point_selection_permission boolean NOT NULL DEFAULT true,
  control_point_settings_permission boolean NOT NULL DEFAULT true,
  control_point_weight_permission boolean NOT NULL DEFAULT true,
  risk_range_edit_permission boolean NOT NULL DEFAULT true,
  risk_score_and_groups_selection_permission boolean NOT NULL DEFAULT true,
  conversion_warnings jsonb NOT NULL DEFAULT '[]',
  warnings_dismissed boolean NOT NULL DEFAULT false
);
CREATE INDEX library_name_lower_idx ON library (lower(name) text_pattern_ops);
CREATE INDEX library_based_on_library_id_idx ON library (based_on_library_id);
CREATE INDEX library_account_grouping_id_idx ON library (account_grouping_id);

CREATE TABLE reporting_period_configuration (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  name text NOT NULL,
  original_name text,
  type text NOT NULL,
  monthly_entries jsonb NOT NULL DEFAULT '[]',
  weekly_entries jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX reporting_period_configuration_name_lower_idx ON reporting_period_configuration (lower(name) text_pattern_ops);
CREATE INDEX reporting_period_configuration_original_name_lower_idx ON reporting_period_configuration (lower(original_name) text_pattern_ops);
CREATE INDEX reporting_period_configuration_type_idx ON reporting_period_configuration (lower(type));

-- Engagements now point at real libraries and reporting period configurations. NOT VALID: rows
-- written before these entities existed are not re-checked; every new or changed row is.
ALTER TABLE engagement ADD CONSTRAINT engagement_library_id_fkey
  FOREIGN KEY (library_id) REFERENCES library (id) ON DELETE RESTRICT NOT VALID;
ALTER TABLE engagement ADD CONSTRAINT engagement_reporting_period_configuration_id_fkey
  FOREIGN KEY (reporting_period_configuration_id) REFERENCES reporting_period_configuration (id) ON DELETE RESTRICT NOT VALID;
CREATE INDEX engagement_reporting_period_configuration_id_idx ON engagement (reporting_period_configuration_id);

CREATE TABLE analysis (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  engagement_id text NOT NULL REFERENCES engagement (id) ON DELETE CASCADE,
  analysis_type_id text NOT NULL REFERENCES analysis_type (id) ON DELETE RESTRICT,
  name text NOT NULL,
  interim boolean NOT NULL DEFAULT false,
  periodic boolean NOT NULL DEFAULT false,
  archived boolean NOT NULL DEFAULT false,
  converted boolean NOT NULL DEFAULT false,
  currency_code text NOT NULL,
  reference_id text,
  important_columns jsonb NOT NULL DEFAULT '[]',
  latest_analysis_result_id text,
  reporting_period_configuration_id text REFERENCES reporting_period_configuration (id) ON DELETE RESTRICT,
  rolled_forward_from_analysis_id text
);
CREATE INDEX analysis_engagement_id_idx ON analysis (engagement_id);
CREATE INDEX analysis_analysis_type_id_idx ON analysis (analysis_type_id);
CREATE INDEX analysis_name_lower_idx ON analysis (lower(name) text_pattern_ops);
CREATE INDEX analysis_reference_id_lower_idx ON analysis (lower(reference_id) text_pattern_ops);
CREATE INDEX analysis_reporting_period_configuration_id_idx ON analysis (reporting_period_configuration_id);

CREATE TABLE analysis_period (
  id text PRIMARY KEY,
  analysis_id text NOT NULL REFERENCES analysis (id) ON DELETE CASCADE ON UPDATE CASCADE,
  start_date date NOT NULL,
  end_date date NOT NULL,
  interim_as_at_date date
);
CREATE INDEX analysis_period_analysis_id_idx ON analysis_period (analysis_id);

CREATE TABLE analysis_result (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  engagement_id text NOT NULL,
  analysis_id text NOT NULL REFERENCES analysis (id) ON DELETE CASCADE ON UPDATE CASCADE,
  analysis_type_id text NOT NULL,
  analysis_periods jsonb NOT NULL DEFAULT '[]',
  interim boolean NOT NULL DEFAULT false
);
CREATE INDEX analysis_result_analysis_id_idx ON analysis_result (analysis_id);
CREATE INDEX analysis_result_engagement_id_idx ON analysis_result (engagement_id);

CREATE TABLE analysis_type_configuration (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  library_id text REFERENCES library (id) ON DELETE CASCADE,
  engagement_id text REFERENCES engagement (id) ON DELETE CASCADE,
  analysis_id text REFERENCES analysis (id) ON DELETE CASCADE,
  analysis_type_id text NOT NULL REFERENCES analysis_type (id) ON DELETE RESTRICT,
  system boolean NOT NULL DEFAULT false,
  template boolean NOT NULL DEFAULT false,
  control_point_bundle_version text,
  configuration jsonb NOT NULL DEFAULT '{}',
  CONSTRAINT analysis_type_configuration_one_scope CHECK (num_nonnulls(library_id, engagement_id, analysis_id) = 1)
);
CREATE INDEX analysis_type_configuration_library_id_idx ON analysis_type_configuration (library_id);
CREATE INDEX analysis_type_configuration_engagement_id_idx ON analysis_type_configuration (engagement_id);
CREATE INDEX analysis_type_configuration_analysis_id_idx ON analysis_type_configuration (analysis_id);
CREATE INDEX analysis_type_configuration_analysis_type_id_idx ON analysis_type_configuration (analysis_type_id);
CREATE UNIQUE INDEX analysis_type_configuration_library_type_key ON analysis_type_configuration (library_id, analysis_type_id) WHERE library_id IS NOT NULL;
CREATE UNIQUE INDEX analysis_type_configuration_engagement_type_key ON analysis_type_configuration (engagement_id, analysis_type_id) WHERE engagement_id IS NOT NULL;
CREATE UNIQUE INDEX analysis_type_configuration_analysis_type_key ON analysis_type_configuration (analysis_id, analysis_type_id) WHERE analysis_id IS NOT NULL;

CREATE TABLE risk_range (
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
  analysis_type_id text NOT NULL REFERENCES analysis_type (id) ON DELETE RESTRICT,
  library_id text REFERENCES library (id) ON DELETE CASCADE,
  engagement_id text REFERENCES engagement (id) ON DELETE CASCADE,
  system boolean NOT NULL DEFAULT false,
  low_low_threshold integer NOT NULL,
  low_high_threshold integer NOT NULL,
  medium_low_threshold integer NOT NULL,
  medium_high_threshold integer NOT NULL,
  high_low_threshold integer NOT NULL,
  high_high_threshold integer NOT NULL,
  CONSTRAINT risk_range_one_scope CHECK (num_nonnulls(library_id, engagement_id) = 1)
);
CREATE INDEX risk_range_library_id_idx ON risk_range (library_id);
CREATE INDEX risk_range_engagement_id_idx ON risk_range (engagement_id);
CREATE INDEX risk_range_analysis_type_id_idx ON risk_range (analysis_type_id);
CREATE INDEX risk_range_name_lower_idx ON risk_range (lower(name) text_pattern_ops);
