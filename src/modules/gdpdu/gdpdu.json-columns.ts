/**
 * The type of `gdpdu_unpack_job.tables`, named in `prisma/schema/files.prisma` and written into the
 * generated client by prisma-json-types-generator: reads and writes are typed.
 */

import type { GDPDU_UNPACK_STATUSES } from "./gdpdu.columns.js";

/** One table of an unpacked GDPdU archive: the CSV file it became. */
export interface UnpackedTable {
  name: string;
  description: string | null;
  url: string;
  fileManagerFileId: string;
  rowCount: number;
  columnCount: number;
}

declare global {
  namespace PrismaJson {
    type GdpduUnpackStatus = (typeof GDPDU_UNPACK_STATUSES)[number];
    type GdpduUnpackedTables = UnpackedTable[];
  }
}
