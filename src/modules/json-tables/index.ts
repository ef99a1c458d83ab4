import "./json-table.schema.js";
import { defineFamily } from "../family.js";
import { jsonTableRoutes } from "./json-table.routes.js";
import { jsonTableCleanup } from "./json-table.cleanup.js";

export const jsonTablesFamily = defineFamily({
  name: "json-tables",
  routes: jsonTableRoutes,
  tasks: [jsonTableCleanup],
});
