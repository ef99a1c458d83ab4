import { AUDIT_COLUMNS, defineColumns, ENUM, ID, TEXT } from "../../query-language/index.js";

/** What POST /file-info/query can filter and sort on; results mix FILE_INFO and TABULAR_FILE_INFO. */
export const fileInfoColumns = defineColumns("file info", {
  ...AUDIT_COLUMNS,
  name: TEXT,
  type: ENUM,
  format: ENUM,
  fileManagerFileId: ID,
  /** PENDING / COMPLETE / FAILED, stored as `state`. */
  status: { ...ENUM, sql: "state" },
});
