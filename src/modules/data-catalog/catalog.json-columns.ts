/**
 * The types of the data catalog's Json and enumeration columns (and of the connection table schema the catalog
 * reads), named in `prisma/schema/connections.prisma` and written into the generated client by
 * prisma-json-types-generator: reads and writes are typed.
 */
import type { TabularSchema } from "../connections/warehouse-types.js";
import type { CATALOG_SOURCES } from "./catalog.columns.js";
import type { ImportPlan } from "./catalog.import.js";
import type { RemapOperation } from "./catalog.plan.js";

declare global {
  namespace PrismaJson {
    /** A Tabular Schema (spec 2.4) as stored and shown. */
    type TabularSchemaValue = TabularSchema;
    type DataFlowOperations = RemapOperation[];
    type DataSourceImportPlan = ImportPlan;
    /** `data_catalog_entry.source` (text in SQL): the GraphQL enum DataCatalogSource. */
    type DataCatalogSource = (typeof CATALOG_SOURCES)[number];
  }
}
