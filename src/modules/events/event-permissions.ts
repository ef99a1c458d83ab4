import { hasAnyPermission, type PermissionScope } from "../../auth/permissions.js";
import type { AuthInfo } from "../../auth/authenticate.js";

/**
 * Which read permission a subscriber needs to see events about an entity type (any one of a
 * list). Modules add their entity types here; an event of an unlisted type is visible to any
 * authenticated subscriber.
 */
const READ_PERMISSION = new Map<string, PermissionScope>([
  ["ORGANIZATION", "api.organizations.read"],
  ["ENGAGEMENT", "api.engagements.read"],
  ["API_TOKEN", "api.api-tokens.read"],
  ["USER", "api.users.read"],
  ["ANALYSIS", "api.analyses.read"],
  ["LIBRARY", "api.libraries.read"],
  ["ANALYSIS_TYPE_CONFIGURATION", "api.analysis-type-configuration.read"],
  ["RISK_RANGE", "api.risk-ranges.read"],
  ["REPORTING_PERIOD_CONFIGURATION", "api.reporting-period-configurations.read"],
  ["ACCOUNT_GROUPING", "api.account-groupings.read"],
  ["ENGAGEMENT_ACCOUNT_GROUPING", "api.engagement-account-groupings.read"],
  // Account mappings belong to the analyses area (src/auth/permissions.ts).
  ["ACCOUNT_MAPPING", "api.analyses.read"],
  ["DATA_TABLE", "api.data-tables.read"],
]);

/**
 * Entity types whose events only the token that caused them may see (file results, like the
 * entities themselves). Every API token has a user of its own, so the event's `userId` names it.
 */
const OWNED_BY_STARTER = new Set<string>();

export function registerEventPermission(entityType: string, permission: PermissionScope): void {
  READ_PERMISSION.set(entityType, permission);
}

export function registerOwnedEventType(entityType: string): void {
  OWNED_BY_STARTER.add(entityType);
}

export function canSeeEvent(auth: Pick<AuthInfo, "userId" | "permissions">, event: { entityType: string; userId: string | null }): boolean {
  if (OWNED_BY_STARTER.has(event.entityType)) return event.userId !== null && event.userId === auth.userId;
  const needed = READ_PERMISSION.get(event.entityType);
  return needed === undefined || hasAnyPermission(auth.permissions, needed);
}
