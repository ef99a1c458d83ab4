/**
 * The types of the file info's Json columns and enumeration text columns, named in `prisma/schema/files.prisma` (`/// [Name]`)
 * and written into the generated client by prisma-json-types-generator: reads and writes are typed.
 */
import type { ColumnData, GroupedFormat as GroupedFormatValue, Metric } from "../../ingestion/index.js";
import type { TabularReading } from "./file-inspection.js";
import type { FILE_INFO_STATUSES, FILE_INFO_TYPES } from "./file-info.columns.js";

declare global {
  namespace PrismaJson {
    /** analysis_source.detected_format and file_info.format. */
    type GroupedFormat = GroupedFormatValue;
    /** file_info.type (wire reference 7). */
    type FileInfoType = (typeof FILE_INFO_TYPES)[number];
    /** file_info.state (on the wire as `status`). */
    type FileInfoState = (typeof FILE_INFO_STATUSES)[number];
    /** The first lines of the file, each a list of its cells. */
    type FileInfoRowContentSnippets = string[][];
    type FileInfoColumnData = ColumnData[];
    type FileInfoTableMetadata = Record<string, Metric>;
    type FileInfoTabularReading = TabularReading;
  }
}
