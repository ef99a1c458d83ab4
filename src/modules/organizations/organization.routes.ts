import { crudRoutes } from "../../../rest/route-helpers.js";

export const organizationRoutes = crudRoutes({ resource: "organizations", idParam: "organizationId", entity: "Organization", tag: "Organizations" });
