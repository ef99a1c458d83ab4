import { AUDIT_COLUMNS, defineColumns, enumOf, FLAG, TEXT } from "../../query-language/index.js";

/** User `role` (wire reference 7), as stored. */
export const ROLES = ["ROLE_ADMIN", "ROLE_USER_ADMIN", "ROLE_ORGANIZATION_ADMIN", "ROLE_USER", "ROLE_CLIENT", "ROLE_PLATFORM_SUPPORT"] as const;

export const userColumns = defineColumns("users", {
  ...AUDIT_COLUMNS,
  email: TEXT,
  firstName: TEXT,
  lastName: TEXT,
  role: enumOf(ROLES),
  enabled: FLAG,
  validated: FLAG,
  serviceAccount: FLAG,
});
