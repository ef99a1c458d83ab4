import { ANALYSIS_SOURCE_TYPES } from "./analysis-source-types.data.js";
import { ANALYSIS_TYPES } from "./analysis-types.data.js";
import { ANALYSIS_TYPE_IDS, SEED_AUDIT } from "./ids.js";
import { SYSTEM_CONFIGURATIONS, SYSTEM_LIBRARIES, SYSTEM_RISK_RANGES } from "./system-libraries.data.js";

/**
 * Renders the catalogue data modules as the INSERT statements of the seed migration
 * (`npm run catalogue-sql` writes them). The seed test reads the rows back through the API and
 * compares them with the same data, so the migration cannot drift from this source.
 */
type SqlValue = string | number | boolean | null | { json: unknown } | { textArray: readonly string[] };

function literal(value: SqlValue): string {
  if (value === null) return "NULL";
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new Error(`catalogue numbers are integers, got ${value}`);
    return String(value);
  }
  if (typeof value === "string") return `'${value.replace(/'/g, "''")}'`;
  if ("json" in value) return `${literal(JSON.stringify(value.json))}::jsonb`;
  return value.textArray.length === 0 ? "'{}'::text[]" : `ARRAY[${value.textArray.map(literal).join(", ")}]::text[]`;
}

function insert(table: string, rows: Array<Record<string, SqlValue>>): string {
  if (rows.length === 0) return "";
  const columns = Object.keys(rows[0]);
  const values = rows.map((row) => `  (${columns.map((c) => literal(row[c])).join(", ")})`);
  return `INSERT INTO ${table} (${columns.join(", ")}) VALUES\n${values.join(",\n")};\n`;
}

const audit = (id: string) => ({
  id,
  version: 0,
  creation_date: SEED_AUDIT.creationDate,
  last_modified_date: SEED_AUDIT.creationDate,
  created_user_name: SEED_AUDIT.userName,
  last_modified_user_name: SEED_AUDIT.userName,
});

export function renderCatalogueSql(): string {
  const parts = [
    "-- GENERATED from src/modules/catalogue/*.data.ts by `npm run catalogue-sql`; do not edit by hand.",
    "-- The seeded catalogue: analysis types, analysis source types, system libraries with their",
    "-- analysis type configurations and default risk ranges (wire reference section 6 ids).",
    "",
    insert(
      "analysis_type",
      ANALYSIS_TYPES.map((t) => ({
        ...audit(t.id),
        name: t.name,
        description: t.description,
        archived: t.archived,
        interim_name: t.interimName,
        interim_supported: t.interimSupported,
        periodic_supported: t.periodicSupported,
        fund_supported: t.fundSupported,
        account_mapping_required: t.accountMappingRequired,
        max_period: t.maxPeriod,
        source_configurations: { json: t.sourceConfigurations },
      })),
    ),
    insert(
      "analysis_source_type",
      ANALYSIS_SOURCE_TYPES.map((t) => ({
        ...audit(t.id),
        name: t.name,
        interim_name: t.interimName,
        archived: t.archived,
        features: { textArray: t.features },
        column_definitions: { json: t.columnDefinitions },
      })),
    ),
    insert(
      "library",
      SYSTEM_LIBRARIES.map((l) => ({
        ...audit(l.id),
        name: l.name,
        account_grouping_id: l.accountGroupingId,
        analysis_type_ids: { textArray: l.analysisTypeKeys.map((k) => ANALYSIS_TYPE_IDS[k]) },
        archived: false,
        system: true,
        default_delimiter: l.defaultDelimiter,
        risk_score_display: l.riskScoreDisplay,
        control_point_selection_permission: l.controlPointSelectionPermission,
        control_point_settings_permission: l.controlPointSettingsPermission,
        control_point_weight_permission: l.controlPointWeightPermission,
        risk_range_edit_permission: l.riskRangeEditPermission,
        risk_score_and_groups_selection_permission: l.riskScoreAndGroupsSelectionPermission,
        conversion_warnings: { json: [] },
        warnings_dismissed: false,
      })),
    ),
    insert(
      "risk_range",
      SYSTEM_RISK_RANGES.map((r) => ({
        ...audit(r.id),
        name: r.name,
        description: r.description,
        analysis_type_id: r.analysisTypeId,
        library_id: r.libraryId,
        system: true,
        low_low_threshold: r.low.lowThreshold,
        low_high_threshold: r.low.highThreshold,
        medium_low_threshold: r.medium.lowThreshold,
        medium_high_threshold: r.medium.highThreshold,
        high_low_threshold: r.high.lowThreshold,
        high_high_threshold: r.high.highThreshold,
      })),
    ),
    insert(
      "analysis_type_configuration",
      SYSTEM_CONFIGURATIONS.map((c) => ({
        ...audit(c.id),
        library_id: c.libraryId,
        analysis_type_id: c.analysisTypeId,
        system: true,
        template: true,
        control_point_bundle_version: c.controlPointBundleVersion,
        configuration: { json: c.configuration },
      })),
    ),
  ];
  return parts.join("\n");
}
