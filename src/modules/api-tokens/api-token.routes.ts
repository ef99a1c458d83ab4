import { crudRoutes, route } from "../../../rest/route-helpers.js";

export const apiTokenRoutes = [
  route({ method: "GET", path: "/api-tokens/current", operation: "query", field: "currentApiToken", summary: "The calling token", tag: "API tokens" }),
  ...crudRoutes({ resource: "api-tokens", idParam: "apiTokenId", entity: "ApiToken", tag: "API tokens" }),
];
