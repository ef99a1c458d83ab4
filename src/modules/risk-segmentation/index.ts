import "./risk-segmentation.schema.js";
import { defineFamily } from "../family.js";
import { crudRoutes } from "../../../rest/route-helpers.js";
import { registerEventPermission } from "../events/event-permissions.js";

registerEventPermission("RISK_SEGMENTATION_CONFIG", "api.analyses.read");

export const riskSegmentationFamily = defineFamily({
  name: "risk-segmentation",
  routes: crudRoutes({ resource: "risk-segmentation-configs", idParam: "riskSegmentationConfigId", entity: "RiskSegmentationConfig", tag: "Risk segmentation configs", ops: ["create", "read", "delete", "query"] }),
  events: ["risk-segmentation-config.created", "risk-segmentation-config.deleted"],
});
