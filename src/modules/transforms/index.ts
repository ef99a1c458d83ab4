import "./transforms.schema.js";
import { defineFamily } from "../family.js";
import { transformRoutes } from "./transforms.routes.js";
import { mergeJob } from "./merge.js";

export const transformsFamily = defineFamily({
  name: "transforms",
  routes: transformRoutes,
  jobs: [mergeJob],
});
