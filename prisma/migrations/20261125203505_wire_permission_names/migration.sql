-- Token permissions are exactly the wire reference's names (src/auth/permissions.ts). Names issued
-- before that list was enforced are rewritten to the permission of the area that now governs their
-- family (the README's table), so a stored token keeps doing what it did; names that no endpoint
-- ever required alone (async results, file results) are dropped. Order of first appearance is kept.
UPDATE api_token t
   SET permissions = ARRAY(
         SELECT m.name
           FROM (SELECT CASE
                          WHEN p = 'api.account-mappings.read' THEN 'api.analyses.read'
                          WHEN p IN ('api.account-mappings.write', 'api.account-mappings.delete') THEN 'api.analyses.write'
                          WHEN p LIKE 'api.chunked-files.%' THEN 'api.file-manager.' || split_part(p, '.', 3)
                          WHEN p LIKE 'api.json-tables.%' THEN 'api.file-manager.' || split_part(p, '.', 3)
                          WHEN p LIKE 'api.populations.%' THEN 'api.filters.' || split_part(p, '.', 3)
                          WHEN p LIKE 'api.risk-segmentation-configs.%' THEN 'api.analysis-type-configuration.' || split_part(p, '.', 3)
                          WHEN p IN ('api.data-flows.read', 'api.data-catalog-entries.read') THEN 'api.connections.read'
                          WHEN p IN ('api.data-flows.write', 'api.data-flows.delete', 'api.data-catalog-entries.delete',
                                     'api.connections.write', 'api.connections.delete') THEN 'api.data-catalog-entries.write'
                          WHEN p LIKE 'api.async-results.%' OR p LIKE 'api.file-results.%' THEN NULL
                          ELSE p
                        END AS name,
                        o
                   FROM unnest(t.permissions) WITH ORDINALITY AS u(p, o)) m
          WHERE m.name IS NOT NULL
          GROUP BY m.name
          ORDER BY min(m.o))
 WHERE EXISTS (SELECT 1 FROM unnest(t.permissions) p
                WHERE p LIKE ANY (ARRAY['api.account-mappings.%', 'api.chunked-files.%', 'api.json-tables.%', 'api.populations.%',
                                        'api.risk-segmentation-configs.%', 'api.data-flows.%', 'api.async-results.%', 'api.file-results.%',
                                        'api.connections.write', 'api.connections.delete', 'api.data-catalog-entries.read',
                                        'api.data-catalog-entries.delete']));
