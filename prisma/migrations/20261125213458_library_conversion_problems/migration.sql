-- Wire reference 8: a library's conversionWarnings are problem objects, as in the error body's
-- problems[] (problemType, severity, identifier, reason, values, entityType, entityId). The only
-- warning written so far ({code: ACCOUNT_GROUPING_CHANGED, defaultMessage}) becomes that object.
UPDATE library l
   SET conversion_warnings = (
         SELECT coalesce(jsonb_agg(
                  CASE WHEN w ? 'problemType' THEN w
                       ELSE jsonb_strip_nulls(jsonb_build_object(
                              'problemType', 'FILTER_CONVERSION_FAILED',
                              'severity', 'WARNING',
                              'identifier', 'accountGroupingId',
                              'reason', coalesce(w ->> 'defaultMessage', w ->> 'code', 'Settings were converted'),
                              'entityType', CASE WHEN l.account_grouping_id IS NOT NULL THEN 'ACCOUNT_GROUPING' END,
                              'entityId', l.account_grouping_id))
                  END), '[]'::jsonb)
           FROM jsonb_array_elements(l.conversion_warnings) AS w)
 WHERE jsonb_typeof(l.conversion_warnings) = 'array' AND jsonb_array_length(l.conversion_warnings) > 0;
