import { crudRoutes, queryArgs, route, type RouteDef } from "../../../rest/route-helpers.js";

const tag = "Data tables";
const id = { from: "path", name: "dataTableId" } as const;

export const dataTableRoutes: RouteDef[] = [
  ...crudRoutes({ resource: "data-tables", idParam: "dataTableId", entity: "DataTable", tag, ops: ["read"] }),
  route({
    method: "POST",
    path: "/data-tables/query",
    operation: "query",
    field: "dataTables",
    args: { ...queryArgs(), includeUnstableSchemas: { from: "query", name: "include-unstable-schemas" } },
    summary: "Query data tables; UNSTABLE schemas only with include-unstable-schemas=true",
    tag,
  }),
  route({
    method: "POST",
    path: "/data-tables/{dataTableId}/data",
    operation: "query",
    field: "dataTableData",
    args: { id, input: { from: "body" } },
    summary: "A page of rows: {page, pageSize (at most 2000), query, sort, fields, excludeFields} -> {content: [rows]}",
    tag,
  }),
  route({ method: "POST", path: "/data-tables/{dataTableId}/export", operation: "mutation", field: "exportDataTable", args: { id, input: { from: "body" } }, summary: "Export as CSV (async result DATA_TABLE_EXPORT, target a FILE_RESULT)", tag }),
  route({
    method: "POST",
    path: "/file-manager/import-from-data-table",
    operation: "mutation",
    field: "importFileFromDataTable",
    args: { input: { from: "body" } },
    summary: "Export a data table into a new CSV file (async result DATA_TABLE_EXPORT, target the file)",
    tag: "File manager",
  }),
];
