/**
 * Token permissions: exactly the wire reference's set (section 7) plus the spec's reporting period
 * permissions. Clients validate these names, so no other name is ever issued, listed or required.
 *
 * Families without an area of their own are governed by the area they belong to (the README's
 * table; each family's root fields name the permission):
 * - account mappings: analyses (read, query, export: api.analyses.read; update, verify,
 *   delete-unused: api.analyses.write, the permission spec 4.3 gives for verify);
 * - chunked files, JSON tables, GDPdU unpack: file-manager;
 * - file results: any token, only the one that started the export sees them;
 * - async results: the read permission of their target (async-result.permissions.ts);
 * - analysis results: analyses; task histories: tasks; saved filters and populations: filters;
 *   webhook event logs: webhooks;
 * - connections and their results and tables, warehouse authorizations, data catalog entries,
 *   data flows, data source import tasks: read api.connections.read, write and delete
 *   api.data-catalog-entries.write (get-data also api.data-tables.write, spec 4.4);
 * - risk segmentation configs: analysis-type-configuration.
 *
 * Tokens stored with names from before this list (api.account-mappings.*, api.chunked-files.*, ...)
 * were rewritten to the governing names by the migration `..._wire_permission_names`.
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
] as const;

const EXTRA = [
  "api.analyses.run",
  "api.data-tables.read",
  "api.data-tables.write",
  "api.analysis-types.read",
  "api.analysis-source-types.read",
  "api.file-infos.read",
  "api.connections.read",
  "api.data-catalog-entries.write",
  "api.admin-reports.run",
  "scim.user.read",
  "scim.user.write",
  "scim.user.delete",
  "scim.user.schema",
] as const;

export type Area = (typeof AREAS)[number];
export type Permission = `api.${Area}.${"read" | "write" | "delete"}` | (typeof EXTRA)[number];

/**
 * What a root field requires: one permission, or a list of which any one will do (the first is
 * the one documented in OpenAPI and the docs page).
 */
export type PermissionScope = Permission | readonly [Permission, ...Permission[]];

export function acceptedPermissions(scope: PermissionScope): readonly Permission[] {
  return typeof scope === "string" ? [scope] : scope;
}

export function hasAnyPermission(granted: ReadonlySet<Permission> | undefined, scope: PermissionScope): boolean {
  return granted !== undefined && acceptedPermissions(scope).some((permission) => granted.has(permission));
}

export const ALL_PERMISSIONS: readonly Permission[] = [
  ...AREAS.flatMap((area) => (["read", "write", "delete"] as const).map((op) => `api.${area}.${op}` as Permission)),
  ...EXTRA,
];

const KNOWN = new Set<string>(ALL_PERMISSIONS);

export function isPermission(value: string): value is Permission {
  return KNOWN.has(value);
}
