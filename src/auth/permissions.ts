/**
 * Token permissions (wire reference section 7). Areas get read/write/delete; a few extra
 * permissions stand alone. Adding an area here is the only step needed for a new resource.
 *
 * account-mappings, async-results, file-results, json-tables and chunked-files are not in the wire
 * reference's list, and no root field requires them alone: clients following the wire reference
 * never ask for them, so a field needing only them was unreachable for those clients (an export's
 * own file result, account mappings, chunked uploads). They stay valid names for tokens already
 * issued with them, honoured as alternatives where they used to be required:
 * - file-results: file results need only an authenticated token (ownership decides, 404 for others);
 * - async-results: never required (each async result follows its target's permission);
 * - account-mappings: accepted beside api.analyses.read / .write;
 * - json-tables, chunked-files: accepted beside api.file-manager.read / .write.
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

/**
 * What a root field requires: one permission, or a list of which any one will do. In a list the
 * first is the wire reference's name (the one documented in OpenAPI and the docs page), the others
 * older names still honoured for tokens issued with them.
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
