import { AUDIT_COLUMNS, defineColumns, ENUM, ID } from "../../query-language/index.js";

/** What POST /async-results/query can filter on (wire reference 2: id $in; entityId, type, entityType under $and). */
export const asyncResultColumns = defineColumns("async result", {
  ...AUDIT_COLUMNS,
  type: ENUM,
  status: ENUM,
  entityId: { ...ID, type: "OBJECTID" },
  entityType: ENUM,
});
