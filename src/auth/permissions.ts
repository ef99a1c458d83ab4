/**
 * Token permissions (wire reference section 7). Areas get read/write/delete; a few extra
 * permissions stand alone. Adding an area here is the only step needed for a new resource.
 */
const AREAS = [
  "organizations",
  "engagements",
  "analyses",
  "analysis-sources",
  "file-manager",
  "libraries",
  "account-groupings",
  "engagement-account-groupings",
  "users",
  "api-tokens",
  "tasks",
  "analysis-type-configuration",
  "risk-ranges",
  "filters",
  "webhooks",
  "reporting-period-configurations",
  "account-mappings",
  "populations",
  "connections",
  "data-catalog-entries",
  "data-flows",
  "risk-segmentation-configs",
  "async-results",
  "file-results",
  "json-tables",
  "chunked-files",
] as const;

const EXTRA = [
  "api.analyses.run",
  "api.data-tables.read",
  "api.data-tables.write",
  "api.analysis-types.read",
  "api.analysis-source-types.read",
  "api.file-infos.read",
  "api.admin-reports.run",
  "scim.user.read",
  "scim.user.write",
  "scim.user.delete",
  "scim.user.schema",
] as const;

export type Area = (typeof AREAS)[number];
export type Permission = `api.${Area}.${"read" | "write" | "delete"}` | (typeof EXTRA)[number];

export const ALL_PERMISSIONS: readonly Permission[] = [
  ...AREAS.flatMap((area) => (["read", "write", "delete"] as const).map((op) => `api.${area}.${op}` as Permission)),
  ...EXTRA,
];

const KNOWN = new Set<string>(ALL_PERMISSIONS);

export function isPermission(value: string): value is Permission {
  return KNOWN.has(value);
}
