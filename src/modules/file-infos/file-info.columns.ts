import { ALL_GROUPED_FORMATS } from "../../ingestion/types.js";
import { AUDIT_COLUMNS, defineColumns, enumOf, ID, TEXT } from "../../query-language/index.js";

/** File info `type` (wire reference 7), as stored. */
export const FILE_INFO_TYPES = ["FILE_INFO", "TABULAR_FILE_INFO"] as const;
/** File info `status` (the `state` column), as stored. */
export const FILE_INFO_STATUSES = ["PENDING", "COMPLETE", "FAILED"] as const;

/** What POST /file-info/query can filter and sort on; results mix FILE_INFO and TABULAR_FILE_INFO. */
export const fileInfoColumns = defineColumns("file info", {
  ...AUDIT_COLUMNS,
  name: TEXT,
  type: enumOf(FILE_INFO_TYPES),
  format: enumOf(ALL_GROUPED_FORMATS),
  fileManagerFileId: ID,
  /** PENDING / COMPLETE / FAILED, stored as `state`. */
  status: { ...enumOf(FILE_INFO_STATUSES), sql: "state" },
});
