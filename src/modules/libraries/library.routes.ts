import { crudRoutes } from "../../../rest/route-helpers.js";

export const libraryRoutes = crudRoutes({ resource: "libraries", idParam: "libraryId", entity: "Library", tag: "Libraries", plural: "libraries" });
