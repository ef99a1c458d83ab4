import "./gdpdu.schema.js";
import { defineFamily } from "../family.js";
import { gdpduRoutes } from "./gdpdu.routes.js";
import { gdpduUnpackJob } from "./gdpdu-unpack.job.js";

export const gdpduFamily = defineFamily({
  name: "gdpdu",
  routes: gdpduRoutes,
  jobs: [gdpduUnpackJob],
});
