import { crudRoutes, route, type RouteDef } from "../../../rest/route-helpers.js";

const tag = "Saved filters";

export const savedFilterRoutes: RouteDef[] = [
  // Before the CRUD entries: /saved-filters/validate must not be read as /saved-filters/{savedFilterId}.
  route({
    method: "POST",
    path: "/saved-filters/validate",
    operation: "query",
    field: "validateSavedFilter",
    args: { filterId: { from: "bodyKey", name: "filterId" }, dataTableId: { from: "bodyKey", name: "dataTableId" } },
    summary: "Errors and warnings when the saved filter cannot be applied to the data table, and the query it compiles to",
    tag,
  }),
  ...crudRoutes({ resource: "saved-filters", idParam: "savedFilterId", entity: "SavedFilter", tag }),
];
