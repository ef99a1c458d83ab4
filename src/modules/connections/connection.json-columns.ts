/**
 * The types of the connection tables' enumeration columns (plain text in SQL), named in
 * `prisma/schema/connections.prisma` and written into the generated client by
 * prisma-json-types-generator: a value reaches Prisma and comes back as the GraphQL enum's type.
 */
import type { AUTH_TYPES, CONNECTION_TYPES } from "./connection.columns.js";

declare global {
  namespace PrismaJson {
    type ConnectionType = (typeof CONNECTION_TYPES)[number];
    type WarehouseAuthType = (typeof AUTH_TYPES)[number];
  }
}

export {};
