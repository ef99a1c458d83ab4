import { builder } from "../../graphql/builder.js";
import { Entity } from "../common/entity.js";
import { pageArgs, pageOf } from "../common/page.js";
import * as service from "./user.service.js";

export const ROLES = ["ROLE_ADMIN", "ROLE_USER_ADMIN", "ROLE_ORGANIZATION_ADMIN", "ROLE_USER", "ROLE_CLIENT", "ROLE_PLATFORM_SUPPORT"] as const;
export const Role = builder.enumType("Role", { values: ROLES });

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
    role: t.field({ type: Role, resolve: (u) => u.role as (typeof ROLES)[number] }),
    enabled: t.exposeBoolean("enabled"),
    validated: t.exposeBoolean("validated"),
    serviceAccount: t.exposeBoolean("serviceAccount"),
    recentLogins: t.field({ type: [RecentLogin], resolve: (u) => (u.recentLogins as Array<{ ipAddress: string; timestamp: string }>) ?? [] }),
  }),
});

builder.queryFields((t) => ({
  currentUser: t.field({
    type: User,
    description: "The API Token User of the calling token",
    authScopes: { authenticated: true },
    resolve: (_root, _args, ctx) => service.getCurrentUser(ctx),
  }),
  user: t.field({
    type: User,
    authScopes: { permission: "api.users.read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.getUser(ctx, id),
  }),
  users: t.field({
    type: pageOf(User, "UserPage"),
    authScopes: { permission: "api.users.read" },
    args: pageArgs(t),
    resolve: (_root, args, ctx) => service.queryUsers(ctx, args),
  }),
}));
