import { AUDIT_COLUMNS, defineColumns, enumOf, ID, TEXT } from "../../query-language/index.js";

/** File manager entity `type` (wire reference 7), as stored. */
export const FILE_MANAGER_TYPES = ["DIRECTORY", "FILE"] as const;

/** What happened to a file since import (wire reference 7). */
export const FILE_STATUSES = ["MODIFIED", "ROLLED_FORWARD"] as const;

/** What POST /file-manager/query can filter and sort on; results mix DIRECTORY and FILE. */
export const fileManagerColumns = defineColumns("file manager entity", {
  ...AUDIT_COLUMNS,
  engagementId: ID,
  parentFileManagerEntityId: ID,
  type: enumOf(FILE_MANAGER_TYPES),
  name: TEXT,
  extension: TEXT,
  originalName: TEXT,
  fileInfoId: ID,
});
