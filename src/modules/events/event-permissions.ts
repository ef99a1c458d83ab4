import type { Permission } from "../../auth/permissions.js";

/**
 * Which read permission a subscriber needs to see events about an entity type. Modules add their
 * entity types here; an event of an unlisted type is visible to any authenticated subscriber.
 */
const READ_PERMISSION = new Map<string, Permission>([
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
  ["ACCOUNT_MAPPING", "api.account-mappings.read"],
  ["DATA_TABLE", "api.data-tables.read"],
]);

export function registerEventPermission(entityType: string, permission: Permission): void {
  READ_PERMISSION.set(entityType, permission);
}

export function canSeeEvent(permissions: ReadonlySet<Permission>, entityType: string): boolean {
  const needed = READ_PERMISSION.get(entityType);
  return needed === undefined || permissions.has(needed);
}
