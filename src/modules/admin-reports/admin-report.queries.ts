import type pg from "pg";

/**
 * The reports' rows, each one set-based statement over the entities the service already keeps:
 * analyses with their latest result's summary, the outbox (every write's domain event, with its
 * acting user) and ingestion and run row counts.
 */
export async function analysisOverviewRows(pool: pg.Pool) {
  const { rows } = await pool.query(`
    SELECT o.name AS organization, o.id AS organization_id, e.name AS engagement, e.id AS engagement_id,
           a.name AS analysis, a.id AS analysis_id, t.name AS analysis_type, a.archived,
           (SELECT min(p.start_date) FROM analysis_period p WHERE p.analysis_id = a.id) AS period_start,
           (SELECT max(p.end_date) FROM analysis_period p WHERE p.analysis_id = a.id) AS period_end,
           r.creation_date AS last_run, r.status AS last_run_status,
           (r.summary -> 'entries' ->> 'total')::bigint AS entries,
           (r.summary -> 'transactions' ->> 'total')::bigint AS transactions,
           (r.summary -> 'entries' -> 'byRiskLevel' ->> 'HIGH')::bigint AS high,
           (r.summary -> 'entries' -> 'byRiskLevel' ->> 'MEDIUM')::bigint AS medium,
           (r.summary -> 'entries' -> 'byRiskLevel' ->> 'LOW')::bigint AS low,
           (r.summary -> 'entries' -> 'byRiskLevel' ->> 'UNSCORED')::bigint AS unscored
    FROM analysis a
    JOIN engagement e ON e.id = a.engagement_id
    JOIN organization o ON o.id = e.organization_id
    LEFT JOIN analysis_type t ON t.id = a.analysis_type_id
    LEFT JOIN LATERAL (SELECT * FROM analysis_result r WHERE r.analysis_id = a.id ORDER BY r.creation_date DESC LIMIT 1) r ON TRUE
    ORDER BY lower(o.name), lower(e.name), lower(a.name), a.id`);
  return rows;
}

/** Activity categories (wire reference 7) of the entity types whose events the outbox keeps. */
export const CATEGORY_OF_ENTITY: Record<string, string> = {
  ACCOUNT_GROUPING: "ACCOUNT_GROUPING",
  ACCOUNT_MAPPING: "ACCOUNT_MAPPING",
  ANALYSIS: "ANALYSIS",
  ANALYSIS_RESULT: "ANALYSIS",
  ANALYSIS_TYPE_CONFIGURATION: "ANALYSIS_SETTINGS",
  API_TOKEN: "API_TOKEN",
  ENGAGEMENT: "ENGAGEMENT",
  ENGAGEMENT_ACCOUNT_GROUPING: "ENGAGEMENT_ACCOUNT_GROUP",
  ENGAGEMENT_ACCOUNT_GROUP: "ENGAGEMENT_ACCOUNT_GROUP",
  FILE_MANAGER_FILE: "FILE_MANAGER",
  FILE_MANAGER_DIRECTORY: "FILE_MANAGER",
  FILE_RESULT: "RESULTS_EXPORT",
  GDPDU_UNPACK_JOB: "GDPDU",
  LIBRARY: "LIBRARY",
  ORGANIZATION: "ORGANIZATION",
  POPULATION: "POPULATION",
  SAVED_FILTER: "FILTER",
  RISK_RANGE: "RISK_RANGES",
  RISK_SEGMENTATION_CONFIG: "RISK_SEGMENTATION_DASHBOARD",
  TASK: "TASK",
  USER: "USER",
  ANALYSIS_SOURCE: "ANALYSIS_SOURCE",
  WEBHOOK: "WEBHOOK",
  PROCEDURE_INSTANCE: "WORKFLOW",
};

export interface ActivityInput {
  start: Date;
  end: Date;
  userIds: string[];
  categories: string[];
  onlyCompletedAnalyses: boolean;
}

/** Who did what: the outbox's domain events in the window (progress is never stored there). */
export async function activityRows(pool: pg.Pool, input: ActivityInput) {
  const entityTypes = input.categories.length === 0 ? null : Object.entries(CATEGORY_OF_ENTITY).filter(([, c]) => input.categories.includes(c)).map(([t]) => t);
  const { rows } = await pool.query(
    `SELECT ev.created_at, ev.user_id, u.user_name, ev.type, ev.entity_type, ev.entity_id
     FROM outbox_event ev
     LEFT JOIN LATERAL (SELECT coalesce(nullif(trim(coalesce(first_name, '') || ' ' || coalesce(last_name, '')), ''), email) AS user_name FROM app_user WHERE id = ev.user_id) u ON TRUE
     WHERE ev.created_at >= $1 AND ev.created_at < $2
       AND ev.type NOT LIKE 'async-result.%' AND ev.type NOT LIKE 'job.%'
       AND ($3::text[] IS NULL OR ev.user_id = ANY($3))
       AND ($4::text[] IS NULL OR ev.entity_type = ANY($4))
       AND (NOT $5 OR ev.entity_type NOT IN ('ANALYSIS', 'ANALYSIS_RESULT')
            OR EXISTS (SELECT 1 FROM analysis_result r WHERE r.status = 'COMPLETED' AND (r.id = ev.entity_id OR r.analysis_id = ev.entity_id)))
     ORDER BY ev.created_at, ev.id`,
    [input.start, input.end, input.userIds.length ? input.userIds : null, entityTypes, input.onlyCompletedAnalyses],
  );
  return rows.map((r) => ({ ...r, category: CATEGORY_OF_ENTITY[r.entity_type] ?? r.entity_type }));
}

/**
 * What a firm is billed on: rows ingested (staged rows of sources that reached PARSED or later in
 * the window, by their last change) and rows analysed (entries of results completed in the window),
 * per organization and engagement.
 */
export async function rowUsageRows(pool: pg.Pool, window: { start: Date; end: Date }) {
  const { rows } = await pool.query(
    `WITH ingested AS (
       SELECT s.engagement_id, count(*) AS sources, sum(coalesce((s.stage ->> 'rowCount')::bigint, 0)) AS rows
       FROM analysis_source s
       WHERE s.workflow_state IN ('PARSED', 'FUNDS_REVIEWED', 'SETTINGS_CONFIRMED', 'COMPLETED')
         AND s.last_modified_date >= $1 AND s.last_modified_date < $2
       GROUP BY s.engagement_id),
     analysed AS (
       SELECT r.engagement_id, count(*) AS runs, sum(coalesce((r.summary -> 'entries' ->> 'total')::bigint, 0)) AS rows
       FROM analysis_result r
       WHERE r.status = 'COMPLETED' AND coalesce(r.completed_date, r.last_modified_date) >= $1 AND coalesce(r.completed_date, r.last_modified_date) < $2
       GROUP BY r.engagement_id)
     SELECT o.name AS organization, o.id AS organization_id, e.name AS engagement, e.id AS engagement_id, e.billing_code,
            coalesce(i.sources, 0) AS sources, coalesce(i.rows, 0) AS rows_ingested, coalesce(a.runs, 0) AS runs, coalesce(a.rows, 0) AS rows_analysed
     FROM engagement e JOIN organization o ON o.id = e.organization_id
     LEFT JOIN ingested i ON i.engagement_id = e.id
     LEFT JOIN analysed a ON a.engagement_id = e.id
     WHERE i.engagement_id IS NOT NULL OR a.engagement_id IS NOT NULL
     ORDER BY lower(o.name), lower(e.name), e.id`,
    [window.start, window.end],
  );
  return rows;
}
