-- Indexes for the columns the query language may filter on in the foundation tables (organization,
-- engagement, app_user, api_token; their *.columns.ts), shaped like the SQL the translator writes
-- (src/query-language/translate.ts). test/query-indexes.test.ts checks, with EXPLAIN, that each
-- equality, range, prefix and contains search of those columns can use one of them.
--
-- STRING columns are compared as lower(col):
--   lower(col) text_pattern_ops       serves =, IN and $iprefix (LIKE 'x%') whatever the collation
--                                     (the foundation migration made these for most text columns);
--   lower(col) (default operator class) serves $gt/$gte/$lt/$lte and ORDER BY lower(col), which
--                                     follow the collation's order that text_pattern_ops does not.
-- Arrays of ids and permission names hold lower-case values: GIN (col) serves col @> ARRAY[$1].
-- Arrays stored as given (account tags, hierarchy codes, features) are compared case-insensitively
-- through lower_text_array(col), which gets a GIN expression index.
-- Boolean flags and version stay unindexed: a two-valued column is not selective enough for the
-- planner to use a btree, and version is a per-entity save counter (filters on it do not select).

CREATE FUNCTION lower_text_array(text[]) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(array_agg(lower(e)), '{}') FROM unnest($1) AS u(e) $$;

-- organization
CREATE INDEX organization_name_lower_order_idx ON organization (lower(name));
CREATE INDEX organization_external_client_code_lower_order_idx ON organization (lower(external_client_code));
CREATE INDEX organization_manager_user_ids_idx ON organization USING gin (manager_user_ids);
CREATE INDEX organization_creation_date_idx ON organization (creation_date);
CREATE INDEX organization_last_modified_date_idx ON organization (last_modified_date);

-- engagement
CREATE INDEX engagement_name_lower_order_idx ON engagement (lower(name));
CREATE INDEX engagement_accounting_package_lower_idx ON engagement (lower(accounting_package) text_pattern_ops);
CREATE INDEX engagement_accounting_package_lower_order_idx ON engagement (lower(accounting_package));
CREATE INDEX engagement_industry_lower_idx ON engagement (lower(industry) text_pattern_ops);
CREATE INDEX engagement_industry_lower_order_idx ON engagement (lower(industry));
CREATE INDEX engagement_billing_code_lower_idx ON engagement (lower(billing_code) text_pattern_ops);
CREATE INDEX engagement_billing_code_lower_order_idx ON engagement (lower(billing_code));
CREATE INDEX engagement_frequency_lower_idx ON engagement (lower(frequency));
CREATE INDEX engagement_engagement_lead_id_idx ON engagement (engagement_lead_id);
CREATE INDEX engagement_auditor_ids_idx ON engagement USING gin (auditor_ids);
CREATE INDEX engagement_creation_date_idx ON engagement (creation_date);
CREATE INDEX engagement_last_modified_date_idx ON engagement (last_modified_date);

-- app_user (role was indexed as stored; the translator compares lower(role))
CREATE INDEX app_user_email_lower_order_idx ON app_user (lower(email));
CREATE INDEX app_user_first_name_lower_order_idx ON app_user (lower(first_name));
CREATE INDEX app_user_last_name_lower_order_idx ON app_user (lower(last_name));
CREATE INDEX app_user_role_lower_idx ON app_user (lower(role));
CREATE INDEX app_user_creation_date_idx ON app_user (creation_date);
CREATE INDEX app_user_last_modified_date_idx ON app_user (last_modified_date);

-- api_token
CREATE INDEX api_token_name_lower_order_idx ON api_token (lower(name));
CREATE INDEX api_token_partial_token_lower_idx ON api_token (lower(partial_token));
CREATE INDEX api_token_expiry_idx ON api_token (expiry);
CREATE INDEX api_token_permissions_idx ON api_token USING gin (permissions);
CREATE INDEX api_token_creation_date_idx ON api_token (creation_date);
CREATE INDEX api_token_last_modified_date_idx ON api_token (last_modified_date);

-- Case-insensitive $contains on arrays stored as given (other families, same translator).
CREATE INDEX account_group_account_tags_lower_idx ON account_group USING gin (lower_text_array(account_tags));
CREATE INDEX account_group_hierarchy_lower_idx ON account_group USING gin (lower_text_array(hierarchy));
CREATE INDEX engagement_account_group_account_tags_lower_idx ON engagement_account_group USING gin (lower_text_array(account_tags));
CREATE INDEX engagement_account_group_hierarchy_lower_idx ON engagement_account_group USING gin (lower_text_array(hierarchy));
CREATE INDEX account_mapping_account_tags_lower_idx ON account_mapping USING gin (lower_text_array(account_tags));
CREATE INDEX analysis_source_type_features_lower_idx ON analysis_source_type USING gin (lower_text_array(features));
