import { queryArgs, route, type RouteDef } from "../../../rest/route-helpers.js";

const tag = "GDPdU";

export const gdpduRoutes: RouteDef[] = [
  route({ method: "POST", path: "/file-manager/transform/gdpdu-unpack", operation: "mutation", field: "unpackGdpduArchive", args: { input: { from: "body" } }, summary: "Unpack a GDPdU archive into a directory of CSV files (async result GDPDU_UNPACK_JOB)", tag: "File manager" }),
  route({ method: "GET", path: "/gdpdu-unpack-jobs/{gdpduUnpackJobId}", operation: "query", field: "gdpduUnpackJob", args: { id: { from: "path", name: "gdpduUnpackJobId" } }, summary: "Read a GDPdU unpack job and what it created", tag }),
  route({ method: "POST", path: "/gdpdu-unpack-jobs/query", operation: "query", field: "gdpduUnpackJobs", args: queryArgs(), summary: "Query GDPdU unpack jobs", tag }),
];
