import "./population.schema.js";
import { defineFamily } from "../family.js";
import { registerPopulationResolver } from "../data-tables/data-table-filters.js";
import { columnSet } from "../data-tables/data-table-rows.js";
import { registerEventPermission } from "../events/event-permissions.js";
import { populationQueries } from "./population.service.js";
import { populationRoutes } from "./population.routes.js";

registerEventPermission("POPULATION", "api.filters.read");
registerPopulationResolver((ctx, table, ids) => populationQueries(ctx, columnSet(table), table, ids));

export const populationsFamily = defineFamily({
  name: "populations",
  routes: populationRoutes,
  events: ["population.created", "population.updated", "population.deleted"],
});
