import { AUDIT_COLUMNS, defineColumns, ENUM, ID, TEXT } from "../../query-language/index.js";

/** What POST /file-manager/query can filter and sort on; results mix DIRECTORY and FILE. */
export const fileManagerColumns = defineColumns("file manager entity", {
  ...AUDIT_COLUMNS,
  engagementId: ID,
  parentFileManagerEntityId: ID,
  type: ENUM,
  name: TEXT,
  extension: TEXT,
  originalName: TEXT,
  fileInfoId: ID,
});
