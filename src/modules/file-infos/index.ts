import "./file-info.schema.js";
import { defineFamily } from "../family.js";
import { fileInfoRoutes } from "./file-info.routes.js";
import { computeFileInfoJob } from "./file-info.jobs.js";
import { arrivalTableCleanup } from "./file-info.cleanup.js";

export const fileInfosFamily = defineFamily({
  name: "file-infos",
  routes: fileInfoRoutes,
  jobs: [computeFileInfoJob],
  tasks: [arrivalTableCleanup],
});
