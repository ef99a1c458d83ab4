import type { Permission } from "../../auth/permissions.js";

/**
 * Async results carry the permissions of their target (spec 2.12): reading one needs the read
 * permission of its `entityType`. FILE_RESULT targets are instead visible only to the token that
 * started the job, like the file result itself. Modules owning other target types may register them.
 */
const READ_PERMISSION = new Map<string, Permission>([
  ["ORGANIZATION", "api.organizations.read"],
  ["ENGAGEMENT", "api.engagements.read"],
  ["ANALYSIS", "api.analyses.read"],
  ["ANALYSIS_RESULT", "api.analyses.read"],
  ["ANALYSIS_SOURCE", "api.analysis-sources.read"],
  ["GDPDU_UNPACK_JOB", "api.file-manager.read"],
  ["FILE_MANAGER_FILE", "api.file-manager.read"],
  ["ACCOUNT_GROUPING", "api.account-groupings.read"],
  ["ENGAGEMENT_ACCOUNT_GROUPING", "api.engagement-account-groupings.read"],
  ["DATA_SOURCE_IMPORT_TASK", "api.data-catalog-entries.read"],
]);

/** Target types whose async results (and targets) only the starting token may see. */
export const TOKEN_OWNED_TARGETS = new Set(["FILE_RESULT"]);

export function registerAsyncResultPermission(entityType: string, permission: Permission): void {
  READ_PERMISSION.set(entityType, permission);
}

export function asyncResultReadPermission(entityType: string): Permission | undefined {
  return READ_PERMISSION.get(entityType);
}

/** Target types whose async results a token with these permissions may read. */
export function readableTargetTypes(permissions: ReadonlySet<Permission>): string[] {
  return [...READ_PERMISSION].filter(([, permission]) => permissions.has(permission)).map(([type]) => type);
}
