import "./connection.schema.js";
import { defineFamily } from "../family.js";
import { registerEventPermission } from "../events/event-permissions.js";
import { connectionRoutes } from "./connection.routes.js";
import { connectionTestResultCleanup } from "./connection.cleanup.js";

registerEventPermission("CONNECTION", "api.connections.read");

export const connectionsFamily = defineFamily({
  name: "connections",
  routes: connectionRoutes,
  tasks: [connectionTestResultCleanup],
  events: ["connection.created", "connection.deleted", "connection.test.complete", "connection.data.complete"],
});
