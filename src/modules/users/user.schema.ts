import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { userColumns } from "./user.columns.js";
import { Entity } from "../common/entity.js";
import { CreateUserInput, Role, UpdateUserInput } from "./user.inputs.js";
import * as service from "./user.service.js";

const RecentLogin = builder.objectRef<{ ipAddress: string; timestamp: string }>("RecentLogin").implement({
  fields: (t) => ({
    ipAddress: t.exposeString("ipAddress"),
    timestamp: t.field({ type: "DateTime", resolve: (l) => l.timestamp }),
  }),
});

export const User = builder.prismaObject("User", {
  interfaces: [Entity],
  fields: (t) => ({
    email: t.exposeString("email", { nullable: true }),
    firstName: t.exposeString("firstName", { nullable: true }),
    lastName: t.exposeString("lastName", { nullable: true }),
    userName: t.string({
      description: "Display name: `(API) <token name>` for an API Token User, else first and last name, else the email",
      resolve: (u) => service.userNameOf(u),
    }),
    role: t.field({ type: Role, resolve: (u) => u.role }),
    enabled: t.exposeBoolean("enabled"),
    validated: t.exposeBoolean("validated"),
    serviceAccount: t.exposeBoolean("serviceAccount"),
    recentLogins: t.field({ type: [RecentLogin], resolve: (u) => u.recentLogins ?? [] }),
  }),
});

builder.queryFields((t) => ({
  currentUser: t.field({
    type: User,
    description: "The API Token User of the calling token",
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => service.getCurrentUser(ctx),
  }),
}));

builder.mutationFields((t) => ({
  resendUserActivationLink: t.field({
    type: User,
    description: "Sends a new activation link, replacing the previous one (modify-users limit applies)",
    authScopes: { permission: "api.users.write" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.resendActivationLink(ctx, id),
  }),
}));

defineCrudFields({
  name: "User",
  type: User,
  columns: userColumns,
  createInput: CreateUserInput,
  updateInput: UpdateUserInput,
  permissions: { read: "api.users.read", write: "api.users.write", delete: "api.users.delete" },
  service: {
    get: service.getUser,
    query: service.queryUsers,
    create: service.inviteUser,
    update: service.updateUser,
    delete: service.deleteUser,
  },
  descriptions: { create: "Invites a user (modify-users limit applies)", update: "Enables/disables a user or changes its role (modify-users limit applies)" },
});
