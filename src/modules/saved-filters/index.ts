import "./saved-filter.schema.js";
import { defineFamily } from "../family.js";
import { registerSavedFilterResolver } from "../data-tables/data-table-filters.js";
import { savedFilterQuery } from "./saved-filter.service.js";
import { savedFilterRoutes } from "./saved-filter.routes.js";
import { registerEventPermission } from "../events/event-permissions.js";

registerEventPermission("SAVED_FILTER", "api.filters.read");
registerSavedFilterResolver((ctx, filterId, set, table) => savedFilterQuery(ctx, filterId, set, table));

export const savedFiltersFamily = defineFamily({
  name: "saved-filters",
  routes: savedFilterRoutes,
  events: ["saved-filter.created", "saved-filter.updated", "saved-filter.deleted"],
});
