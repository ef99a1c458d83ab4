import { crudRoutes, route } from "../../../rest/route-helpers.js";

export const userRoutes = [
  route({ method: "GET", path: "/users/current", operation: "query", field: "currentUser", summary: "The calling token's API Token User", tag: "Users" }),
  ...crudRoutes({ resource: "users", idParam: "userId", entity: "User", tag: "Users", ops: ["read", "query"] }),
];
