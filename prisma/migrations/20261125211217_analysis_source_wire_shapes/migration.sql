-- Wire reference 8, analysis source: `errors` and `warnings` are lists of {code, defaultMessage}
-- (never bare strings), and `fileInfoVersions` maps a file version to a file info id readable at
-- GET /file-info/{id}.

-- 1. Messages: stored strings become objects. Errors so far came from failed ingestion jobs, warnings
--    from values the parse could not read.
--    (ALTER ... TYPE ... USING cannot hold a subquery: new columns, filled, then renamed.)
ALTER TABLE analysis_source ADD COLUMN errors_json jsonb NOT NULL DEFAULT '[]', ADD COLUMN warnings_json jsonb NOT NULL DEFAULT '[]';
UPDATE analysis_source
   SET errors_json = to_jsonb(ARRAY(SELECT jsonb_build_object('code', 'INGESTION_FAILED', 'defaultMessage', e) FROM unnest(errors) AS e)),
       warnings_json = to_jsonb(ARRAY(SELECT jsonb_build_object('code', 'UNPARSEABLE_VALUES', 'defaultMessage', w) FROM unnest(warnings) AS w))
 WHERE cardinality(errors) > 0 OR cardinality(warnings) > 0;
ALTER TABLE analysis_source DROP COLUMN errors, DROP COLUMN warnings;
ALTER TABLE analysis_source RENAME COLUMN errors_json TO errors;
ALTER TABLE analysis_source RENAME COLUMN warnings_json TO warnings;

-- 2. A source's own file info (the reading its column positions refer to) is a file info entity:
--    file_info.analysis_source_id names the source (one per source, removed with it), and the
--    source keeps the map version -> file info id it publishes.
ALTER TABLE file_info ADD COLUMN analysis_source_id text REFERENCES analysis_source (id) ON DELETE CASCADE ON UPDATE CASCADE;
CREATE UNIQUE INDEX file_info_analysis_source_id_key ON file_info (analysis_source_id);
ALTER TABLE analysis_source ADD COLUMN file_info_versions jsonb NOT NULL DEFAULT '{}';

-- Sources that already have a file info get their row now (ids in the ObjectId layout: seconds, then random hex).
INSERT INTO file_info (id, version, creation_date, last_modified_date, created_user_id, created_user_name, last_modified_user_id, last_modified_user_name,
                       file_manager_file_id, analysis_source_id, name, type, format, format_detected, encoding, delimiter, first_line,
                       header_row_index, last_non_blank_row_index, row_content_snippets, column_data, table_metadata, state)
SELECT lpad(to_hex(extract(epoch FROM now())::bigint), 8, '0') || substr(md5(s.id || random()::text), 1, 16),
       0, s.last_modified_date, s.last_modified_date, s.last_modified_user_id, s.last_modified_user_name, s.last_modified_user_id, s.last_modified_user_name,
       s.file_manager_file_id, s.id, coalesce(s.file_info ->> 'name', ''), 'TABULAR_FILE_INFO', s.file_info ->> 'format',
       coalesce((s.file_info ->> 'formatDetected')::boolean, false), s.file_info ->> 'encoding', s.file_info ->> 'delimiter', s.file_info ->> 'firstLine',
       (s.file_info ->> 'headerRowIndex')::integer, (s.file_info ->> 'lastNonBlankRowIndex')::integer,
       coalesce(s.file_info -> 'rowContentSnippets', '[]'), coalesce(s.file_info -> 'columnData', '[]'), coalesce(s.file_info -> 'tableMetadata', '{}'), 'COMPLETE'
  FROM analysis_source s
 WHERE s.file_info IS NOT NULL;

UPDATE analysis_source s
   SET file_info_versions = CASE
         WHEN s.degrouper_applied AND f.file_info_id IS NOT NULL THEN jsonb_build_object('ORIGINAL', f.file_info_id, 'DEGROUPED', i.id)
         WHEN s.degrouper_applied THEN jsonb_build_object('DEGROUPED', i.id)
         ELSE jsonb_build_object('ORIGINAL', i.id)
       END
  FROM file_info i
  LEFT JOIN file_manager_entity f ON f.id = i.file_manager_file_id
 WHERE i.analysis_source_id = s.id;
