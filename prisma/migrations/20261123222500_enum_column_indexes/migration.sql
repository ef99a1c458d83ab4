-- Enumeration columns (enumOf in the *.columns.ts files) are no longer compared as lower(col): the
-- query language checks a filter value against the enumeration, accepts it in any case and binds
-- the canonical (stored) value, so the translator writes `col = $1`, `col = ANY($1::text[])` and
-- sorts by `col` (src/query-language/translate.ts, sort.ts). A plain btree on the column serves
-- those; the lower(col) indexes made for two of these columns serve nothing any more.
-- (test/query-indexes.test.ts EXPLAINs engagement.frequency and app_user.role.)

-- engagement.frequency: lower(frequency) (20261123191423_query_indexes) becomes a plain index.
DROP INDEX engagement_frequency_lower_idx;
CREATE INDEX engagement_frequency_idx ON engagement (frequency);

-- app_user.role: the foundation migration's app_user_role_idx (role) serves it now.
DROP INDEX app_user_role_lower_idx;

-- reporting_period_configuration.type: was indexed as lower(type).
DROP INDEX reporting_period_configuration_type_idx;
CREATE INDEX reporting_period_configuration_type_idx ON reporting_period_configuration (type);
