/**
 * Types of this family's String columns that hold wire enum values, named in
 * `prisma/schema/files.prisma` and written into the generated client by prisma-json-types-generator.
 */
import type { FILE_MANAGER_TYPES, FILE_STATUSES } from "./file-manager.columns.js";

declare global {
  namespace PrismaJson {
    /** One entry of `status` (a text[] column). */
    type FileStatus = (typeof FILE_STATUSES)[number];
    /** file_manager_entity.type (wire reference 7). */
    type FileManagerType = (typeof FILE_MANAGER_TYPES)[number];
  }
}
