import { queryArgs, route, type RouteDef } from "../../../rest/route-helpers.js";
import type { FileDownloadShape } from "./file-download.js";
import { fileResultKey } from "./file-result.service.js";

const tag = "File results";
const id = { from: "path", name: "fileResultId" } as const;

export const fileResultRoutes: RouteDef[] = [
  route({ method: "GET", path: "/file-results/{fileResultId}", operation: "query", field: "fileResult", args: { id }, summary: "Read a file result (only the token that started its job sees it)", tag }),
  route({ method: "POST", path: "/file-results/query", operation: "query", field: "fileResults", args: queryArgs(), summary: "Query the calling token's file results with the filter language", tag }),
  route({
    method: "GET",
    path: "/file-results/{fileResultId}/export",
    operation: "query",
    field: "fileResultDownload",
    args: { id },
    summary: "Download a file result's bytes",
    tag,
    download: { storageKey: (d: FileDownloadShape) => fileResultKey(d.id), fileName: (d: FileDownloadShape) => d.fileName },
  }),
];
