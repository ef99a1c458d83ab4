import "./catalog.schema.js";
import { defineFamily } from "../family.js";
import { catalogRoutes } from "./catalog.routes.js";
import { importJob } from "./catalog.import.js";
import { orphanedImportTables } from "./catalog.cleanup.js";

export const dataCatalogFamily = defineFamily({
  name: "data-catalog",
  routes: catalogRoutes,
  jobs: [importJob],
  tasks: [orphanedImportTables],
});
