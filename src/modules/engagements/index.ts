import "./engagement.schema.js";
import { defineFamily } from "../family.js";
import { engagementRoutes } from "./engagement.routes.js";

export const engagementsFamily = defineFamily({
  name: "engagements",
  routes: engagementRoutes,
  events: ["engagement.created", "engagement.updated", "engagement.deleted"],
});
