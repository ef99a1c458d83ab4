import { ANALYSIS_SOURCE_TYPES } from "./analysis-source-types.data.js";
import { ANALYSIS_TYPES } from "./analysis-types.data.js";
import { ANALYSIS_TYPE_IDS, SEED_AUDIT } from "./ids.js";
import { SYSTEM_CONFIGURATIONS, SYSTEM_LIBRARIES, SYSTEM_RISK_RANGES } from "./system-libraries.data.js";
import { CONTROL_POINT_BUNDLE_VERSION } from "./control-points.data.js";

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

/**
 * The control point names of the first catalogue (our own, e.g. RARE_FLOWS) -> the platform's
 * symbolic names (control-points.md), with the old default weight: a weight a user had changed
 * is carried over to the new name, a default one gives way to the new default. Names without a
 * counterpart (SAME_PREPARER_APPROVER, SPLIT_INVOICE, ...) are dropped.
 */
const RENAMED: Record<"GL" | "AP" | "AR", Array<[string, number, string | null]>> = {
  GL: [
    ["RARE_FLOWS", 60, "journal_entry_flat_gifi_bucket_rarity"],
    ["OUTLIER_ANOMALY", 70, "journal_entry_isolation_forest"],
    ["UNUSUAL_AMOUNT", 50, "journal_entry_flat_unusual_amount_v4"],
    ["ROUND_AMOUNT", 20, "journal_entry_last_3_digits"],
    ["BENFORD_DIGITS", 20, "journal_entry_two_digit_benford_v2"],
    ["WEEKEND_POSTING", 30, "journal_entry_weekend_post"],
    ["POST_CLOSE_ENTRY", 50, "journal_entry_reporting_analysis_period_adjustment"],
    ["BACKDATED_ENTRY", 40, "journal_entry_reporting_adjustment"],
    ["MANUAL_ENTRY", 30, "journal_entry_manual_entry"],
    ["SAME_PREPARER_APPROVER", 40, null],
    ["MEMO_KEYWORDS", 30, "journal_entry_suspicious_keyword"],
    ["REVERSED_ENTRY", 20, "journal_entry_is_reversed_by"],
    ["DUPLICATE_ENTRY", 50, "journal_entry_duplicate_v2"],
    ["HIGH_MONETARY_VALUE", 60, "journal_entry_high_dollar_value"],
    ["INTERFUND_TRANSFER", 40, "journal_entry_nfp_interfund_transfer"],
  ],
  AP: [
    ["DUPLICATE_INVOICE", 70, "ap_entry_duplicate_document"],
    ["SPLIT_INVOICE", 50, null],
    ["NEW_VENDOR", 40, "ap_entry_vendor_not_in_vendor_list"],
    ["PAYMENT_BEFORE_INVOICE", 60, "ap_entry_invoice_created_after_effective_date"],
    ["OVERDUE_PAYMENT", 30, "ap_entry_old_unpaid_invoice"],
    ["ROUND_AMOUNT", 20, "ap_entry_last_3_digits"],
    ["UNUSUAL_AMOUNT", 50, "ap_entry_unusual_amount_by_vendor"],
    ["WEEKEND_POSTING", 30, null],
    ["BENFORD_DIGITS", 20, "ap_entry_two_digit_benford"],
  ],
  AR: [
    ["DUPLICATE_INVOICE", 70, "ar_entry_duplicate_document"],
    ["NEW_CUSTOMER", 40, "ar_entry_customer_not_in_customer_list"],
    ["CREDIT_LIMIT_EXCEEDED", 50, null],
    ["OVERDUE_RECEIVABLE", 40, "ar_entry_old_unpaid_invoice"],
    ["CREDIT_NOTE_AFTER_PERIOD", 60, null],
    ["ROUND_AMOUNT", 20, "ar_entry_last_3_digits"],
    ["UNUSUAL_AMOUNT", 50, "ar_entry_unusual_amount_by_customer"],
    ["WEEKEND_POSTING", 30, null],
    ["BENFORD_DIGITS", 20, "ar_entry_two_digit_benford"],
  ],
};

/**
 * The migration that brings stored catalogue rows and every configuration copy in line with the
 * platform's control points: system risk ranges and configurations take the data modules' values;
 * other configurations get the new names and defaults (weights a user changed carried over), the
 * risk groups' MAC filters of the old defaults corrected (`1000` -> `1`), empty settings and
 * custom control point lists, and the new bundle version.
 */
export function renderControlPointMigrationSql(): string {
  const parts: string[] = [
    "-- GENERATED from src/modules/catalogue by renderControlPointMigrationSql(); do not edit by hand.",
    "-- Control points brought in line with the platform's (symbolic names, defaults) and the",
    "-- platform's default risk range (low < 30%, medium 30% to 49.99%, high 50% and above).",
    "",
  ];
  for (const r of SYSTEM_RISK_RANGES) {
    parts.push(
      `UPDATE risk_range SET low_low_threshold = ${r.low.lowThreshold}, low_high_threshold = ${r.low.highThreshold}, medium_low_threshold = ${r.medium.lowThreshold}, ` +
        `medium_high_threshold = ${r.medium.highThreshold}, high_low_threshold = ${r.high.lowThreshold}, high_high_threshold = ${r.high.highThreshold} WHERE id = ${literal(r.id)};`,
    );
  }
  for (const c of SYSTEM_CONFIGURATIONS) {
    parts.push(`UPDATE analysis_type_configuration SET configuration = ${literal({ json: c.configuration })}, control_point_bundle_version = ${literal(c.controlPointBundleVersion)} WHERE id = ${literal(c.id)};`);
  }
  const familyOf = (key: string) => (key === "ACCOUNTS_PAYABLE_V2" ? "AP" : key === "ACCOUNTS_RECEIVABLE_V2" ? "AR" : "GL");
  const rows: string[] = [];
  const defaults: string[] = [];
  for (const type of ANALYSIS_TYPES) {
    const family = familyOf(type.key);
    const weights = SYSTEM_CONFIGURATIONS.find((c) => c.analysisTypeId === type.id)!.configuration.riskGroups[0].controlPointWeights;
    defaults.push(`(${literal(type.id)}, ${literal({ json: weights })})`);
    for (const [old, oldDefault, renamed] of RENAMED[family]) {
      if (renamed && renamed in weights) rows.push(`(${literal(type.id)}, ${literal(old)}, ${oldDefault}, ${literal(renamed)})`);
    }
  }
  const filters = [
    ['["1000"]', '["1"]'],
    ['["2000", "3000"]', '["2", "3"]'],
    ['["4000", "5000"]', '["4", "5"]'],
  ];
  const filterCase = `CASE ${filters.map(([from, to]) => `WHEN g->'filter'->'values' = '${from}'::jsonb THEN '{"values": ${to}}'::jsonb`).join(" ")} ELSE g->'filter' END`;
  parts.push(`
WITH renamed (analysis_type_id, old_name, old_default, new_name) AS (VALUES
  ${rows.join(",\n  ")}),
defaults (analysis_type_id, weights) AS (VALUES
  ${defaults.join(",\n  ")})
UPDATE analysis_type_configuration c
   SET control_point_bundle_version = ${literal(CONTROL_POINT_BUNDLE_VERSION)},
       configuration = c.configuration || jsonb_build_object(
         'controlPointSettings', coalesce(c.configuration->'controlPointSettings', '{}'::jsonb),
         'customControlPoints', coalesce(c.configuration->'customControlPoints', '[]'::jsonb),
         'riskGroups', (
           SELECT coalesce(jsonb_agg(g || jsonb_build_object(
                    'controlPointBundleVersion', ${literal(CONTROL_POINT_BUNDLE_VERSION)},
                    'filter', ${filterCase},
                    'controlPointWeights', d.weights || coalesce((
                      SELECT jsonb_object_agg(r.new_name, (g->'controlPointWeights'->>r.old_name)::integer)
                        FROM renamed r
                       WHERE r.analysis_type_id = c.analysis_type_id AND g->'controlPointWeights' ? r.old_name
                         AND (g->'controlPointWeights'->>r.old_name)::integer <> r.old_default), '{}'::jsonb)) ORDER BY e.ord), '[]'::jsonb)
             FROM jsonb_array_elements(c.configuration->'riskGroups') WITH ORDINALITY AS e(g, ord)))
  FROM defaults d
 WHERE d.analysis_type_id = c.analysis_type_id
   AND c.id NOT IN (${SYSTEM_CONFIGURATIONS.map((s) => literal(s.id)).join(", ")});
`);
  return parts.join("\n");
}
