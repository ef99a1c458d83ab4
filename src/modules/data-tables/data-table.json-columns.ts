/**
 * The type of `data_table.columns`, named in `prisma/schema/data-tables.prisma` (`/// [DataTableColumns]`)
 * and written into the generated client by prisma-json-types-generator: reads and writes are typed.
 */
import type { DataTableColumn } from "./data-table-definition.js";

declare global {
  namespace PrismaJson {
    type DataTableColumns = DataTableColumn[];
  }
}
