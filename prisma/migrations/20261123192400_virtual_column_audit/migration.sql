-- Applied virtual columns carry an audit (wire reference 8: id, version, dates, users), stored in
-- each element of analysis_source.virtual_columns. Columns applied before this have none: they get
-- a stable id derived from the source and their place, version 0, and the source's last change as
-- their creation.
UPDATE analysis_source s
   SET virtual_columns = (
     SELECT jsonb_agg(
              CASE WHEN e.v ? 'id' THEN e.v
                   ELSE e.v || jsonb_build_object(
                          'id', substr(md5(s.id || ':' || e.ord::text), 1, 24),
                          'version', 0,
                          'creationDate', to_char(s.last_modified_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                          'lastModifiedDate', to_char(s.last_modified_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                          'createdUserId', s.last_modified_user_id,
                          'createdUserName', s.last_modified_user_name,
                          'lastModifiedUserId', s.last_modified_user_id,
                          'lastModifiedUserName', s.last_modified_user_name)
              END ORDER BY e.ord)
       FROM jsonb_array_elements(s.virtual_columns) WITH ORDINALITY AS e(v, ord))
 WHERE jsonb_typeof(s.virtual_columns) = 'array'
   AND EXISTS (SELECT 1 FROM jsonb_array_elements(s.virtual_columns) v WHERE NOT v ? 'id');
