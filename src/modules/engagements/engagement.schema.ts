import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { analysisColumns } from "../analyses/analysis.columns.js";
import { whereArg } from "../common/where.js";
import { engagementColumns } from "./engagement.columns.js";
import { Entity } from "../common/entity.js";
import { relatedListArgs } from "../common/page.js";
import * as analyses from "../analyses/analysis.service.js";
import { CreateEngagementInput, Frequency, UpdateEngagementInput } from "./engagement.inputs.js";
import * as service from "./engagement.service.js";
import { childrenOf, entitiesByIds, entityById } from "../common/relations.js";
import { accountMappingColumns } from "../account-mappings/account-mapping.columns.js";
import { dataTableColumns } from "../data-tables/data-table.columns.js";
import { configurationColumns } from "../analysis-type-configurations/configuration.columns.js";
import { riskRangeColumns } from "../risk-ranges/risk-range.columns.js";

const AccountingPeriod = builder.objectRef<{ fiscalStartDay: number | null; fiscalStartMonth: number | null; frequency: PrismaJson.EngagementFrequency | null }>("AccountingPeriod").implement({
  fields: (t) => ({
    fiscalStartDay: t.exposeInt("fiscalStartDay", { nullable: true }),
    fiscalStartMonth: t.exposeInt("fiscalStartMonth", { nullable: true }),
    frequency: t.field({ type: Frequency, nullable: true, resolve: (p) => p.frequency }),
  }),
});

const EmailSubscription = builder.objectRef<{ userId: string; eventTypes?: string[] }>("EmailSubscription").implement({
  description: "A user who receives email about this engagement; no eventTypes means every kind",
  fields: (t) => ({
    userId: t.exposeID("userId"),
    eventTypes: t.stringList({ resolve: (s) => s.eventTypes ?? [] }),
    user: t.prismaField({ type: "User", nullable: true, description: "The subscribed user (userId)", extensions: { rest: false }, authScopes: { permission: "api.users.read" }, resolve: (_q, s, _a, ctx) => entityById("user")(ctx, s.userId) }),
  }),
});

export const Engagement = builder.prismaObject("Engagement", {
  interfaces: [Entity],
  fields: (t) => ({
    organizationId: t.exposeID("organizationId"),
    name: t.exposeString("name"),
    libraryId: t.exposeID("libraryId"),
    accountingPackage: t.exposeString("accountingPackage", { nullable: true }),
    accountingPeriod: t.field({ type: AccountingPeriod, nullable: true, resolve: (e) => (e.frequency || e.fiscalStartMonth ? e : null) }),
    auditPeriodEndDate: t.expose("auditPeriodEndDate", { type: "Date", nullable: true }),
    industry: t.exposeString("industry", { nullable: true }),
    auditorIds: t.exposeIDList("auditorIds"),
    engagementLeadId: t.exposeID("engagementLeadId", { nullable: true }),
    billingCode: t.exposeString("billingCode", { nullable: true }),
    reportingPeriodConfigurationId: t.exposeID("reportingPeriodConfigurationId", { nullable: true }),
    emailSubscriptions: t.field({ type: [EmailSubscription], resolve: (e) => e.emailSubscriptions }),
    organization: t.relation("organization", { authScopes: { permission: "api.organizations.read" } }),
    analyses: t.prismaField({
      type: ["Analysis"],
      authScopes: { permission: "api.analyses.read" },
      args: { ...relatedListArgs(t), ...whereArg(t, "Analysis", analysisColumns) },
      resolve: (_query, engagement, args, ctx) => analyses.engagementAnalyses(ctx, engagement.id, args),
    }),
    library: t.prismaField({ type: "Library", nullable: true, authScopes: { permission: "api.libraries.read" }, resolve: (_q, p, _a, ctx) => entityById("library")(ctx, p.libraryId) }),
    reportingPeriodConfiguration: t.prismaField({ type: "ReportingPeriodConfiguration", nullable: true, authScopes: { permission: "api.reporting-period-configurations.read" }, resolve: (_q, p, _a, ctx) => entityById("reportingPeriodConfiguration")(ctx, p.reportingPeriodConfigurationId) }),
    engagementLead: t.prismaField({ type: "User", nullable: true, authScopes: { permission: "api.users.read" }, resolve: (_q, p, _a, ctx) => entityById("user")(ctx, p.engagementLeadId) }),
    auditors: t.prismaField({ type: ["User"], description: "The users auditorIds names (ids naming no user left out)", authScopes: { permission: "api.users.read" }, resolve: (_q, p, _a, ctx) => entitiesByIds("user")(ctx, p.auditorIds) }),
    accountMappings: t.prismaField({
      type: ["AccountMapping"],
      authScopes: { permission: "api.analyses.read" },
      args: { ...relatedListArgs(t), ...whereArg(t, "AccountMapping", accountMappingColumns) },
      resolve: (_q, p, args, ctx) => childrenOf("accountMapping", accountMappingColumns, "engagementId")(ctx, p.id, args),
    }),
    dataTables: t.prismaField({
      type: ["DataTable"],
      authScopes: { permission: "api.data-tables.read" },
      args: { ...relatedListArgs(t), ...whereArg(t, "DataTable", dataTableColumns) },
      resolve: (_q, p, args, ctx) => childrenOf("dataTable", dataTableColumns, "engagementId")(ctx, p.id, args),
    }),
    analysisTypeConfigurations: t.prismaField({
      type: ["AnalysisTypeConfiguration"],
      authScopes: { permission: "api.analysis-type-configuration.read" },
      args: { ...relatedListArgs(t), ...whereArg(t, "AnalysisTypeConfiguration", configurationColumns) },
      resolve: (_q, p, args, ctx) => childrenOf("analysisTypeConfiguration", configurationColumns, "engagementId")(ctx, p.id, args),
    }),
    riskRanges: t.prismaField({
      type: ["RiskRange"],
      authScopes: { permission: "api.risk-ranges.read" },
      args: { ...relatedListArgs(t), ...whereArg(t, "RiskRange", riskRangeColumns) },
      resolve: (_q, p, args, ctx) => childrenOf("riskRange", riskRangeColumns, "engagementId")(ctx, p.id, args),
    }),
  }),
});

defineCrudFields({
  name: "Engagement",
  type: Engagement,
  columns: engagementColumns,
  createInput: CreateEngagementInput,
  updateInput: UpdateEngagementInput,
  permissions: { read: "api.engagements.read", write: "api.engagements.write", delete: "api.engagements.delete" },
  service: {
    get: service.getEngagement,
    query: service.queryEngagements,
    create: service.createEngagement,
    update: service.updateEngagement,
    delete: service.deleteEngagement,
  },
});
