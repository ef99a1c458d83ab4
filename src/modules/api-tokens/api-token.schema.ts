import { builder } from "../../graphql/builder.js";
import { whereArg } from "../common/where.js";
import { apiTokenColumns } from "./api-token.columns.js";
import { Entity } from "../common/entity.js";
import { DeleteResult } from "../common/delete-result.js";
import { pageArgs, pageOf } from "../common/page.js";
import { User } from "../users/user.schema.js";
import * as service from "./api-token.service.js";
import { ALL_PERMISSIONS } from "../../auth/permissions.js";
import { listOf, namedShape, shaped } from "../common/json-shape.js";

// GraphQL enum values cannot contain dots: permissions are strings there, an enum in OpenAPI.
const PERMISSIONS = shaped(listOf(namedShape("Permission", { type: "string", enum: [...ALL_PERMISSIONS], description: "Token permission (wire reference 7)" })));
const PERMISSIONS_DESCRIPTION = "Permissions (wire reference 7: api.<area>.read|write|delete and a few more; the OpenAPI document lists them)";

export const ApiToken = builder.prismaObject("ApiToken", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    userId: t.exposeID("userId"),
    expiry: t.expose("expiry", { type: "DateTime" }),
    permissions: t.exposeStringList("permissions", { ...PERMISSIONS, description: PERMISSIONS_DESCRIPTION }),
    allowedAddresses: t.exposeStringList("allowedAddresses"),
    partialToken: t.exposeString("partialToken"),
    user: t.relation("user", { type: User, authScopes: { permission: "api.users.read" } } as never),
  }),
});

/** The create response: the token plus its secret, which no later read returns. */
const CreatedApiToken = builder.objectRef<Awaited<ReturnType<typeof service.createApiToken>>>("CreatedApiToken").implement({
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    userId: t.exposeID("userId"),
    expiry: t.expose("expiry", { type: "DateTime" }),
    permissions: t.exposeStringList("permissions", { ...PERMISSIONS, description: PERMISSIONS_DESCRIPTION }),
    allowedAddresses: t.exposeStringList("allowedAddresses"),
    partialToken: t.exposeString("partialToken"),
    token: t.exposeString("token", { description: "The full secret; shown only in this response" }),
  }),
});

const CreateApiTokenInput = builder.inputType("CreateApiTokenInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    expiry: t.field({ type: "DateTime", description: "At most 2 years ahead; defaults to 2 years" }),
    permissions: t.stringList({ required: true, ...PERMISSIONS, description: `${PERMISSIONS_DESCRIPTION}; an unknown name is refused (400 naming it)` }),
    allowedAddresses: t.stringList({ description: "IPv4/IPv6 addresses or CIDR ranges; empty allows any" }),
  }),
});

const UpdateApiTokenInput = builder.inputType("UpdateApiTokenInput", {
  fields: (t) => ({
    name: t.string(),
    version: t.int({ required: true }),
  }),
});

builder.queryFields((t) => ({
  currentApiToken: t.field({
    type: ApiToken,
    description: "The calling token",
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => service.getCurrentApiToken(ctx),
  }),
  apiToken: t.field({
    type: ApiToken,
    authScopes: { permission: "api.api-tokens.read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.getApiToken(ctx, id),
  }),
  apiTokens: t.field({
    type: pageOf(ApiToken, "ApiTokenPage"),
    authScopes: { permission: "api.api-tokens.read" },
    args: { ...pageArgs(t), ...whereArg(t, "ApiToken", apiTokenColumns) },
    resolve: (_root, args, ctx) => service.queryApiTokens(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createApiToken: t.field({
    type: CreatedApiToken,
    authScopes: { permission: "api.api-tokens.write" },
    args: { input: t.arg({ type: CreateApiTokenInput, required: true }) },
    resolve: (_root, { input }, ctx) => service.createApiToken(ctx, input),
  }),
  updateApiToken: t.field({
    type: ApiToken,
    authScopes: { permission: "api.api-tokens.write" },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateApiTokenInput, required: true }) },
    resolve: (_root, { id, input }, ctx) => service.updateApiToken(ctx, id, input),
  }),
  deleteApiToken: t.field({
    type: DeleteResult,
    authScopes: { permission: "api.api-tokens.delete" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.deleteApiToken(ctx, id),
  }),
}));
