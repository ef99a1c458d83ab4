import SchemaBuilder from "@pothos/core";
import PrismaPlugin from "@pothos/plugin-prisma";
import ScopeAuthPlugin from "@pothos/plugin-scope-auth";
import type PrismaTypes from "../generated/pothos-types.js";
import { getDatamodel } from "../generated/pothos-types.js";
import { ForbiddenError, UnauthenticatedError } from "../core/errors.js";
import { acceptedPermissions, hasAnyPermission, type PermissionScope } from "../auth/permissions.js";
import type { RequestContext } from "./context.js";

/**
 * The one schema builder. Types live in the modules (src/modules/<family>); this file only wires
 * plugins: Prisma-backed object types, and permission scopes evaluated once per request from the
 * bearer token (ctx.auth).
 */
export const builder = new SchemaBuilder<{
  Context: RequestContext;
  PrismaTypes: PrismaTypes;
  AuthScopes: { permission: PermissionScope; authenticated: boolean };
  DefaultFieldNullability: false;
  Scalars: {
    // graphql-js always hands ID inputs to resolvers as strings.
    ID: { Input: string; Output: string | number };
    DateTime: { Input: Date; Output: Date | string };
    Date: { Input: string; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    ObjectId: { Input: string; Output: string };
    Long: { Input: number; Output: number | bigint };
    Upload: { Input: string; Output: never };
  };
}>({
  plugins: [ScopeAuthPlugin, PrismaPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    authorizeOnSubscribe: true,
    authScopes: (ctx) => ({
      authenticated: ctx.auth !== null,
      permission: (scope: PermissionScope) => hasAnyPermission(ctx.auth?.permissions, scope),
    }),
    unauthorizedError: (_parent, context, _info, result) => {
      if (!context.auth) return new UnauthenticatedError();
      const missing = [...collectPermissions(result.failure as Failure)];
      return new ForbiddenError(missing.length ? `The token lacks the permission ${missing.join(" or ")}` : "The token is not allowed to do this", {
        values: missing,
      });
    },
  },
  prisma: {
    client: (ctx) => ctx.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
});

type Failure = { kind: string; scope?: string; parameter?: unknown; failures?: Failure[] };

function collectPermissions(failure: Failure): Set<string> {
  const found = new Set<string>();
  const walk = (f: Failure) => {
    if (f.scope === "permission" && f.parameter) for (const permission of acceptedPermissions(f.parameter as PermissionScope)) found.add(permission);
    f.failures?.forEach(walk);
  };
  walk(failure);
  return found;
}

/** The builder's resolved schema types, for helpers that take or return type refs. */
export type AppSchemaTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
