import "./library.schema.js";
import { defineFamily } from "../family.js";
import { libraryRoutes } from "./library.routes.js";

export const librariesFamily = defineFamily({
  name: "libraries",
  routes: libraryRoutes,
  events: ["library.created", "library.updated", "library.deleted"],
});
