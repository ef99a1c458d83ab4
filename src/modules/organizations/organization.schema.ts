import { builder } from "../../graphql/builder.js";
import { engagementColumns } from "../engagements/engagement.columns.js";
import { whereArg } from "../common/where.js";
import { organizationColumns } from "./organization.columns.js";
import { Entity } from "../common/entity.js";
import { defineCrudFields } from "../common/crud-fields.js";
import { relatedListArgs } from "../common/page.js";
import * as engagements from "../engagements/engagement.service.js";
import * as service from "./organization.service.js";
import { entitiesByIds } from "../common/relations.js";
import { CreateOrganizationInput, UpdateOrganizationInput } from "./organization.inputs.js";

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

defineCrudFields({
  name: "Organization",
  type: Organization,
  columns: organizationColumns,
  createInput: CreateOrganizationInput,
  updateInput: UpdateOrganizationInput,
  permissions: { read: "api.organizations.read", write: "api.organizations.write", delete: "api.organizations.delete" },
  service: {
    get: service.getOrganization,
    query: service.queryOrganizations,
    create: service.createOrganization,
    update: service.updateOrganization,
    delete: service.deleteOrganization,
  },
});
