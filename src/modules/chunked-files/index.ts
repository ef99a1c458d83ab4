import "./chunked-file.schema.js";
import { defineFamily } from "../family.js";
import { chunkedFileRoutes } from "./chunked-file.routes.js";
import { chunkedFileCleanup } from "./chunked-file.cleanup.js";

export const chunkedFilesFamily = defineFamily({
  name: "chunked-files",
  routes: chunkedFileRoutes,
  tasks: [chunkedFileCleanup],
});
