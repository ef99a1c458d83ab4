import { ASYNC_ENTITY_TYPES, ASYNC_RESULT_TYPES, ASYNC_STATUSES } from "../../jobs/define.js";
import { AUDIT_COLUMNS, defineColumns, enumOf, ID } from "../../query-language/index.js";

/** What POST /async-results/query can filter on (wire reference 2: id $in; entityId, type, entityType under $and). */
export const asyncResultColumns = defineColumns("async result", {
  ...AUDIT_COLUMNS,
  type: enumOf(ASYNC_RESULT_TYPES),
  status: enumOf(ASYNC_STATUSES),
  entityId: { ...ID, type: "OBJECTID" },
  entityType: enumOf(ASYNC_ENTITY_TYPES),
});
