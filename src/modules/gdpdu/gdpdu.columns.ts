import { AUDIT_COLUMNS, defineColumns, enumOf, ID, TEXT } from "../../query-language/index.js";

/** GDPdU unpack job `status`, as stored (the GraphQL enum GdpduUnpackStatus). */
export const GDPDU_UNPACK_STATUSES = ["RUNNING", "UNPACK_COMPLETE", "FAILED"] as const;

export const gdpduUnpackJobColumns = defineColumns("GDPdU unpack job", {
  ...AUDIT_COLUMNS,
  engagementId: ID,
  fileManagerFileId: ID,
  directoryId: ID,
  status: enumOf(GDPDU_UNPACK_STATUSES),
  name: TEXT,
});
