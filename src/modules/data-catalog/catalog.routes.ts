import { crudRoutes, route, type RouteDef } from "../../../rest/route-helpers.js";

const tag = "Data catalog";

export const catalogRoutes: RouteDef[] = [
  ...crudRoutes({ resource: "data-catalog-entries", idParam: "dataCatalogEntryId", entity: "DataCatalogEntry", tag, plural: "dataCatalogEntries" }),
  route({ method: "POST", path: "/data-catalog-entries/{dataCatalogEntryId}/validate", operation: "mutation", field: "validateDataCatalogEntry", args: { id: { from: "path", name: "dataCatalogEntryId" } }, summary: "Check the entry against its source (validation errors)", tag }),
  route({ method: "POST", path: "/data-catalog-entries/{dataCatalogEntryId}/get-data", operation: "mutation", field: "getDataCatalogEntryData", args: { id: { from: "path", name: "dataCatalogEntryId" }, input: { from: "body" } }, summary: "Import into a data table (async result DATA_SOURCE_IMPORT_TASK)", tag }),
  ...crudRoutes({ resource: "data-flows", idParam: "dataFlowId", entity: "DataFlow", tag }),
  route({ method: "POST", path: "/data-flows/{dataFlowId}/validate", operation: "mutation", field: "validateDataFlow", args: { id: { from: "path", name: "dataFlowId" } }, summary: "Check the flow against its input (validation errors)", tag }),
  route({ method: "POST", path: "/data-flows/{dataFlowId}/get-data", operation: "mutation", field: "getDataFlowData", args: { id: { from: "path", name: "dataFlowId" }, input: { from: "body" } }, summary: "Import the flow's output into a data table (async result DATA_SOURCE_IMPORT_TASK)", tag }),
  ...crudRoutes({ resource: "data-source-import-tasks", idParam: "dataSourceImportTaskId", entity: "DataSourceImportTask", tag, ops: ["read", "query"] }),
  route({ method: "POST", path: "/connections/{connectionId}/get-data", operation: "mutation", field: "getConnectionData", args: { id: { from: "path", name: "connectionId" }, input: { from: "body" } }, summary: "Import a discovered table into a data table (async result DATA_SOURCE_IMPORT_TASK; also needs api.connections.read)", tag: "Connections" }),
];
