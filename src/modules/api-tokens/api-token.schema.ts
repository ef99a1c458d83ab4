import { entityById } from "../common/relations.js";
import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { apiTokenColumns } from "./api-token.columns.js";
import { Entity } from "../common/entity.js";
import { User } from "../users/user.schema.js";
import * as service from "./api-token.service.js";
import { CreateApiTokenInput, PERMISSIONS, PERMISSIONS_DESCRIPTION, UpdateApiTokenInput } from "./api-token.inputs.js";


export const ApiToken = builder.prismaObject("ApiToken", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    userId: t.exposeID("userId"),
    expiry: t.expose("expiry", { type: "DateTime" }),
    permissions: t.exposeStringList("permissions", { ...PERMISSIONS, description: PERMISSIONS_DESCRIPTION }),
    allowedAddresses: t.exposeStringList("allowedAddresses"),
    partialToken: t.exposeString("partialToken"),
    user: t.relation("user", { type: User, authScopes: { permission: "api.users.read" } }),
  }),
});

/** The create response: the token plus its secret, which no later read returns. */
const userById = entityById("user");

const CreatedApiToken = builder.objectRef<Awaited<ReturnType<typeof service.createApiToken>>>("CreatedApiToken").implement({
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    userId: t.exposeID("userId"),
    expiry: t.expose("expiry", { type: "DateTime" }),
    permissions: t.exposeStringList("permissions", { ...PERMISSIONS, description: PERMISSIONS_DESCRIPTION }),
    allowedAddresses: t.exposeStringList("allowedAddresses"),
    partialToken: t.exposeString("partialToken"),
    user: t.prismaField({ type: "User", nullable: true, extensions: { rest: false }, authScopes: { permission: "api.users.read" }, resolve: (_q, tok, _a, ctx) => userById(ctx, tok.userId) }),
    token: t.exposeString("token", { description: "The full secret; shown only in this response" }),
  }),
});

builder.queryFields((t) => ({
  currentApiToken: t.field({
    type: ApiToken,
    description: "The calling token",
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => service.getCurrentApiToken(ctx),
  }),
}));

defineCrudFields({
  name: "ApiToken",
  type: ApiToken,
  columns: apiTokenColumns,
  createInput: CreateApiTokenInput,
  createdType: CreatedApiToken,
  updateInput: UpdateApiTokenInput,
  permissions: { read: "api.api-tokens.read", write: "api.api-tokens.write", delete: "api.api-tokens.delete" },
  service: {
    get: service.getApiToken,
    query: service.queryApiTokens,
    create: service.createApiToken,
    update: service.updateApiToken,
    delete: service.deleteApiToken,
  },
});
