import "./data-table.schema.js";
import { defineFamily } from "../family.js";
import { dataTableRoutes } from "./data-table.routes.js";
import { indexDataTableJob } from "./data-table.indexes.js";
import { exportDataTableJob, importDataTableJob } from "./data-table.service.js";

export const dataTablesFamily = defineFamily({
  name: "data-tables",
  routes: dataTableRoutes,
  jobs: [indexDataTableJob, exportDataTableJob, importDataTableJob],
  events: ["data-table.created", "data-table.updated", "data-table.deleted"],
});
