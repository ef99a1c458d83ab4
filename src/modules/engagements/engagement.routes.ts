import { crudRoutes } from "../../../rest/route-helpers.js";

export const engagementRoutes = crudRoutes({ resource: "engagements", idParam: "engagementId", entity: "Engagement", tag: "Engagements" });
