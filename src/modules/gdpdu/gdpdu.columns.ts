import { AUDIT_COLUMNS, defineColumns, ENUM, ID, TEXT } from "../../query-language/index.js";

export const gdpduUnpackJobColumns = defineColumns("GDPdU unpack job", {
  ...AUDIT_COLUMNS,
  engagementId: ID,
  fileManagerFileId: ID,
  directoryId: ID,
  status: ENUM,
  name: TEXT,
});
