/**
 * The type of `gdpdu_unpack_job.tables`, named in `prisma/schema/files.prisma` and written into the
 * generated client by prisma-json-types-generator: reads and writes are typed.
 */

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
    type GdpduUnpackedTables = UnpackedTable[];
  }
}
