import type { RouteDef } from "./route-helpers.js";
import { families, type Family } from "../src/modules/index.js";

/** The /api/v1 endpoints of the given families. Families own their entries; this only collects them. */
export function routeTableOf(served: readonly Family[]): RouteDef[] {
  return served.flatMap((family) => family.routes ?? []);
}

/** Every /api/v1 endpoint. */
export const routeTable: RouteDef[] = routeTableOf(families);
