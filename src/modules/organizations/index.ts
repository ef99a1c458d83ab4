import "./organization.schema.js";
import { defineFamily } from "../family.js";
import { organizationRoutes } from "./organization.routes.js";

export const organizationsFamily = defineFamily({
  name: "organizations",
  routes: organizationRoutes,
  events: ["organization.created", "organization.updated", "organization.deleted"],
});
