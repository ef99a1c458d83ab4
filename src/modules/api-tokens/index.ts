import "./api-token.schema.js";
import { defineFamily } from "../family.js";
import { apiTokenRoutes } from "./api-token.routes.js";

export const apiTokensFamily = defineFamily({
  name: "api-tokens",
  routes: apiTokenRoutes,
  events: ["api-token.created", "api-token.updated", "api-token.deleted"],
});
