import { acceptedPermissions, hasAnyPermission, type Permission, type PermissionScope } from "../../auth/permissions.js";

/**
 * Async results carry the permissions of their target (spec 2.12): reading one needs the read
 * permission of its `entityType` (any one of a list). FILE_RESULT targets are instead visible only
 * to the token that started the job, like the file result itself, whatever its permissions: the
 * export flow (wire reference 4) must work for any token allowed to start an export. Modules
 * owning other target types may register them.
 */
const READ_PERMISSION = new Map<string, PermissionScope>([
  ["ORGANIZATION", "api.organizations.read"],
  ["ENGAGEMENT", "api.engagements.read"],
  ["ANALYSIS", "api.analyses.read"],
  ["ANALYSIS_RESULT", "api.analyses.read"],
  ["ANALYSIS_SOURCE", "api.analysis-sources.read"],
  ["GDPDU_UNPACK_JOB", "api.file-manager.read"],
  ["FILE_MANAGER_FILE", "api.file-manager.read"],
  ["ACCOUNT_GROUPING", "api.account-groupings.read"],
  ["ENGAGEMENT_ACCOUNT_GROUPING", "api.engagement-account-groupings.read"],
  ["DATA_SOURCE_IMPORT_TASK", "api.connections.read"],
]);

/** Target types whose async results (and targets) only the starting token may see. */
export const TOKEN_OWNED_TARGETS = new Set(["FILE_RESULT"]);

export function registerAsyncResultPermission(entityType: string, permission: PermissionScope): void {
  READ_PERMISSION.set(entityType, permission);
}

/** The permissions any one of which lets a token read async results targeting `entityType`. */
export function asyncResultReadPermissions(entityType: string): readonly Permission[] | undefined {
  const scope = READ_PERMISSION.get(entityType);
  return scope === undefined ? undefined : acceptedPermissions(scope);
}

/** Target types whose async results a token with these permissions may read. */
export function readableTargetTypes(permissions: ReadonlySet<Permission>): string[] {
  return [...READ_PERMISSION].filter(([, scope]) => hasAnyPermission(permissions, scope)).map(([type]) => type);
}
