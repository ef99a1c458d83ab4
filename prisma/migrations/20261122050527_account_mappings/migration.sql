-- Account mappings (issue 3 point 8): which engagement account group each ledger account belongs to.
-- Rows are created by ingestion when accounts are discovered; one row per account (and fund).
CREATE TABLE account_mapping (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  engagement_id text NOT NULL REFERENCES engagement (id) ON DELETE CASCADE ON UPDATE CASCADE,
  account text NOT NULL,
  account_description text,
  -- code of the engagement account group the account maps to; null while unmapped
  code text,
  account_tags text[] NOT NULL DEFAULT '{}',
  fund_id text,
  status text NOT NULL,
  used_by_analysis_sources text[] NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX account_mapping_account_key ON account_mapping (engagement_id, account, coalesce(fund_id, ''));
CREATE INDEX account_mapping_engagement_status_idx ON account_mapping (engagement_id, status);
CREATE INDEX account_mapping_engagement_code_idx ON account_mapping (engagement_id, code);
CREATE INDEX account_mapping_account_lower_idx ON account_mapping (lower(account) text_pattern_ops);
CREATE INDEX account_mapping_account_description_lower_idx ON account_mapping (lower(account_description) text_pattern_ops);
CREATE INDEX account_mapping_code_lower_idx ON account_mapping (lower(code) text_pattern_ops);
CREATE INDEX account_mapping_fund_id_lower_idx ON account_mapping (lower(fund_id) text_pattern_ops);
CREATE INDEX account_mapping_status_idx ON account_mapping (status);
CREATE INDEX account_mapping_account_tags_idx ON account_mapping USING gin (account_tags);
CREATE INDEX account_mapping_used_by_idx ON account_mapping USING gin (used_by_analysis_sources);
