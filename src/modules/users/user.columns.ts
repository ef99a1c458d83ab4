import { AUDIT_COLUMNS, defineColumns, ENUM, FLAG, TEXT } from "../../query-language/index.js";

export const userColumns = defineColumns("users", {
  ...AUDIT_COLUMNS,
  email: TEXT,
  firstName: TEXT,
  lastName: TEXT,
  role: ENUM,
  enabled: FLAG,
  validated: FLAG,
  serviceAccount: FLAG,
});
