import { crudRoutes } from "../../../rest/route-helpers.js";

export const populationRoutes = crudRoutes({ resource: "populations", idParam: "populationId", entity: "Population", tag: "Populations" });
