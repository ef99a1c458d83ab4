-- Foundation: organizations, engagements, users, API tokens, the event outbox.
-- Queryable string columns get lower() indexes because the query language compares case-insensitively.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE organization (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  name text NOT NULL,
  external_client_code text,
  manager_user_ids text[] NOT NULL DEFAULT '{}'
);
CREATE INDEX organization_name_lower_idx ON organization (lower(name) text_pattern_ops);
CREATE INDEX organization_name_trgm_idx ON organization USING gin (lower(name) gin_trgm_ops);
CREATE INDEX organization_external_client_code_lower_idx ON organization (lower(external_client_code) text_pattern_ops);

CREATE TABLE engagement (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  organization_id text NOT NULL REFERENCES organization (id) ON DELETE RESTRICT ON UPDATE CASCADE,
  name text NOT NULL,
  library_id text NOT NULL,
  accounting_package text,
  fiscal_start_day integer,
  fiscal_start_month integer,
  frequency text,
  audit_period_end_date date,
  industry text,
  auditor_ids text[] NOT NULL DEFAULT '{}',
  engagement_lead_id text,
  billing_code text,
  reporting_period_configuration_id text,
  email_subscriptions jsonb NOT NULL DEFAULT '[]',
  settings_based_on_engagement_id text
);
CREATE INDEX engagement_organization_id_idx ON engagement (organization_id);
CREATE INDEX engagement_library_id_idx ON engagement (library_id);
CREATE INDEX engagement_name_lower_idx ON engagement (lower(name) text_pattern_ops);
CREATE INDEX engagement_name_trgm_idx ON engagement USING gin (lower(name) gin_trgm_ops);
CREATE INDEX engagement_audit_period_end_date_idx ON engagement (audit_period_end_date);

CREATE TABLE app_user (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  email text UNIQUE,
  first_name text,
  last_name text,
  role text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  validated boolean NOT NULL DEFAULT false,
  service_account boolean NOT NULL DEFAULT false,
  recent_logins jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX app_user_email_lower_idx ON app_user (lower(email) text_pattern_ops);
CREATE INDEX app_user_role_idx ON app_user (role);

CREATE TABLE api_token (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  name text NOT NULL,
  user_id text NOT NULL UNIQUE REFERENCES app_user (id) ON DELETE RESTRICT ON UPDATE CASCADE,
  token_hash text NOT NULL UNIQUE,
  partial_token text NOT NULL,
  expiry timestamptz(3) NOT NULL,
  permissions text[] NOT NULL,
  allowed_addresses text[] NOT NULL DEFAULT '{}'
);
CREATE INDEX api_token_name_lower_idx ON api_token (lower(name) text_pattern_ops);

CREATE TABLE outbox_event (
  id bigserial PRIMARY KEY,
  type text NOT NULL,
  entity_type text NOT NULL,
  entity_id text,
  user_id text,
  payload jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  published_at timestamptz(3)
);
CREATE INDEX outbox_event_published_at_id_idx ON outbox_event (published_at, id);
CREATE INDEX outbox_event_unpublished_idx ON outbox_event (id) WHERE published_at IS NULL;
