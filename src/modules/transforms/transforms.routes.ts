import { route, type RouteDef } from "../../../rest/route-helpers.js";

export const transformRoutes: RouteDef[] = [
  route({ method: "POST", path: "/file-manager/transform/merge", operation: "mutation", field: "mergeFiles", args: { input: { from: "body" } }, summary: "Merge column selections of several files into one (async result DATA_TRANSFORMATION_JOB)", tag: "File manager" }),
];
