import { queryArgs, route, type RouteDef } from "../../../rest/route-helpers.js";

const tag = "Async results";

export const asyncResultRoutes: RouteDef[] = [
  route({ method: "GET", path: "/async-results/{asyncResultId}", operation: "query", field: "asyncResult", args: { id: { from: "path", name: "asyncResultId" } }, summary: "Read an async result (poll it until COMPLETE or ERROR)", tag }),
  route({ method: "POST", path: "/async-results/query", operation: "query", field: "asyncResults", args: queryArgs(), summary: "Query async results, e.g. {\"id\":{\"$in\":[...]}} to poll several", tag }),
];
