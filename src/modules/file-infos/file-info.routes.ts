import { queryArgs, route, type RouteDef } from "../../../rest/route-helpers.js";

const tag = "File infos";

export const fileInfoRoutes: RouteDef[] = [
  route({ method: "GET", path: "/file-info/{fileInfoId}", operation: "query", field: "fileInfo", args: { id: { from: "path", name: "fileInfoId" } }, summary: "Read a file info (FILE_INFO or TABULAR_FILE_INFO)", tag }),
  route({ method: "POST", path: "/file-info/query", operation: "query", field: "fileInfos", args: queryArgs(), summary: "Query file infos", tag }),
];
