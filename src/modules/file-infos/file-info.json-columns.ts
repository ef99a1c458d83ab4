/**
 * The types of the file info's Json columns, named in `prisma/schema/files.prisma` (`/// [Name]`)
 * and written into the generated client by prisma-json-types-generator: reads and writes are typed.
 */
import type { ColumnData, GroupedFormat as GroupedFormatValue, Metric } from "../../ingestion/index.js";
import type { TabularReading } from "./file-inspection.js";

declare global {
  namespace PrismaJson {
    /** analysis_source.detected_format. */
    type GroupedFormat = GroupedFormatValue;
    /** The first lines of the file, each a list of its cells. */
    type FileInfoRowContentSnippets = string[][];
    type FileInfoColumnData = ColumnData[];
    type FileInfoTableMetadata = Record<string, Metric>;
    type FileInfoTabularReading = TabularReading;
  }
}
