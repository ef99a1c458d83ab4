import { builder } from "../../graphql/builder.js";
import { engagementColumns } from "../engagements/engagement.columns.js";
import { whereArg } from "../common/where.js";
import { organizationColumns } from "./organization.columns.js";
import { Entity } from "../common/entity.js";
import { DeleteResult } from "../common/delete-result.js";
import { pageArgs, pageOf, relatedListArgs } from "../common/page.js";
import * as engagements from "../engagements/engagement.service.js";
import * as service from "./organization.service.js";
import { entitiesByIds } from "../common/relations.js";

export const Organization = builder.prismaObject("Organization", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    externalClientCode: t.exposeString("externalClientCode", { nullable: true }),
    managerUserIds: t.exposeIDList("managerUserIds"),
    engagements: t.prismaField({
      type: ["Engagement"],
      authScopes: { permission: "api.engagements.read" },
      args: { ...relatedListArgs(t), ...whereArg(t, "Engagement", engagementColumns) },
      resolve: (_query, organization, args, ctx) => engagements.organizationEngagements(ctx, organization.id, args),
    }),
    managers: t.prismaField({ type: ["User"], description: "The users managerUserIds names (ids naming no user left out)", authScopes: { permission: "api.users.read" }, resolve: (_q, p, _a, ctx) => entitiesByIds("user")(ctx, p.managerUserIds) }),
  }),
});

const CreateOrganizationInput = builder.inputType("CreateOrganizationInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    externalClientCode: t.string(),
    managerUserIds: t.idList(),
  }),
});

const UpdateOrganizationInput = builder.inputType("UpdateOrganizationInput", {
  fields: (t) => ({
    name: t.string(),
    externalClientCode: t.string(),
    managerUserIds: t.idList(),
    version: t.int({ required: true }),
  }),
});

builder.queryFields((t) => ({
  organization: t.field({
    type: Organization,
    authScopes: { permission: "api.organizations.read" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.getOrganization(ctx, id),
  }),
  organizations: t.field({
    type: pageOf(Organization, "OrganizationPage"),
    authScopes: { permission: "api.organizations.read" },
    args: { ...pageArgs(t), ...whereArg(t, "Organization", organizationColumns) },
    resolve: (_root, args, ctx) => service.queryOrganizations(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  createOrganization: t.field({
    type: Organization,
    authScopes: { permission: "api.organizations.write" },
    args: { input: t.arg({ type: CreateOrganizationInput, required: true }) },
    resolve: (_root, { input }, ctx) => service.createOrganization(ctx, input),
  }),
  updateOrganization: t.field({
    type: Organization,
    authScopes: { permission: "api.organizations.write" },
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateOrganizationInput, required: true }) },
    resolve: (_root, { id, input }, ctx) => service.updateOrganization(ctx, id, input),
  }),
  deleteOrganization: t.field({
    type: DeleteResult,
    authScopes: { permission: "api.organizations.delete" },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => service.deleteOrganization(ctx, id),
  }),
}));
