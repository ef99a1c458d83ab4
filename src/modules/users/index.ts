import "./user.schema.js";
import { defineFamily } from "../family.js";
import { userRoutes } from "./user.routes.js";

export const usersFamily = defineFamily({
  name: "users",
  routes: userRoutes,
  events: ["user.invited", "user.role", "user.status", "user.deleted"],
});
