import { crudRoutes, route } from "../../../rest/route-helpers.js";

export const apiTokenRoutes = [
  route({ method: "GET", path: "/api-tokens/current", operation: "query", field: "currentApiToken", summary: "The calling token", tag: "API tokens" }),
  // The create response (with `token`) is a read body too: sent back, its read-only keys are dropped.
  ...crudRoutes({ resource: "api-tokens", idParam: "apiTokenId", entity: "ApiToken", tag: "API tokens", readModel: "CreatedApiToken" }),
];
