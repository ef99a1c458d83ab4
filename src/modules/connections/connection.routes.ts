import { crudRoutes, route, type RouteDef } from "../../../rest/route-helpers.js";

const tag = "Connections";
const readAndQuery = (resource: string, idParam: string, entity: string, plural: string) =>
  crudRoutes({ resource, idParam, entity, tag, plural, ops: ["read", "query"] });

export const connectionRoutes: RouteDef[] = [
  ...crudRoutes({ resource: "connections", idParam: "connectionId", entity: "Connection", tag, ops: ["create", "read", "delete", "query"] }),
  route({ method: "POST", path: "/connections/{connectionId}/test", operation: "mutation", field: "testConnection", args: { id: { from: "path", name: "connectionId" } }, summary: "Test the connection (connection test result with a message)", tag }),
  route({ method: "POST", path: "/connections/{connectionId}/tables", operation: "mutation", field: "discoverConnectionTables", args: { id: { from: "path", name: "connectionId" } }, summary: "Discover the warehouse's tables (connection tables result with the count)", tag }),
  ...crudRoutes({ resource: "warehouse-auth", idParam: "authorizationId", entity: "WarehouseAuthorization", tag, ops: ["create", "read", "delete", "query"] }),
  route({ method: "PUT", path: "/warehouse-auth", operation: "mutation", field: "updateWarehouseAuthorization", args: { input: { from: "body" } }, readModel: "WarehouseAuthorization", summary: "Update a warehouse authorization (id and version in the body)", tag }),
  ...readAndQuery("connection-test-results", "connectionTestResultId", "ConnectionTestResult", "connectionTestResults"),
  ...readAndQuery("connection-tables-results", "connectionTablesResultId", "ConnectionTablesResult", "connectionTablesResults"),
  ...readAndQuery("connection-tables", "connectionTableId", "ConnectionTable", "connectionTables"),
];
