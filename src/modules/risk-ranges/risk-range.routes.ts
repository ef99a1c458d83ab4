import { crudRoutes } from "../../../rest/route-helpers.js";

export const riskRangeRoutes = crudRoutes({ resource: "risk-ranges", idParam: "riskRangeId", entity: "RiskRange", tag: "Risk ranges" });
