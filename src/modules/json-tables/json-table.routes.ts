import { route, type RouteDef } from "../../../rest/route-helpers.js";
import { claimJsonTableAppend } from "./json-table.service.js";

const tag = "JSON tables";
const id = { from: "path", name: "jsonTableId" } as const;

export const jsonTableRoutes: RouteDef[] = [
  route({ method: "POST", path: "/json-tables", operation: "mutation", field: "createJsonTable", args: { input: { from: "body" } }, summary: "Create an empty JSON table (body {})", tag }),
  route({ method: "GET", path: "/json-tables/{jsonTableId}", operation: "query", field: "jsonTable", args: { id }, summary: "Read a JSON table (headers, currentSize)", tag }),
  route({
    method: "POST",
    path: "/json-tables/{jsonTableId}/append",
    operation: "mutation",
    field: "appendJsonTableFromBody",
    args: { id, page: { from: "bodyFile" } },
    // Streamed: a page of 50,000 rows would otherwise be parsed whole into memory.
    bodyFile: { name: "page", claim: (ctx, params) => claimJsonTableAppend(ctx, params.jsonTableId), schema: { type: "array", minItems: 1, items: { type: "object", minProperties: 1, description: "A row: column name to value" } } },
    summary: "Append one page: a JSON array of row objects; one page at a time",
    tag,
  }),
  route({ method: "POST", path: "/file-manager/import-from-json-table", operation: "mutation", field: "importFileFromJsonTable", args: { input: { from: "body" } }, summary: "Create a CSV file from all pages of a JSON table", tag: "File manager" }),
];
