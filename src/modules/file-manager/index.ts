import "./file-manager.schema.js";
import { defineFamily } from "../family.js";
import { fileManagerRoutes } from "./file-manager.routes.js";
import { stagingCleanup } from "./staged-uploads.cleanup.js";
import { orphanedFileCleanup } from "./file-manager.cleanup.js";

export const fileManagerFamily = defineFamily({
  name: "file-manager",
  routes: fileManagerRoutes,
  tasks: [stagingCleanup, orphanedFileCleanup],
  events: ["file-manager.created", "file-manager.updated", "file-manager.deleted"],
});
