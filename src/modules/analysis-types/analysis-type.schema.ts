import { defineCrudFields } from "../common/crud-fields.js";
import { builder } from "../../graphql/builder.js";
import { analysisTypeColumns } from "./analysis-type.columns.js";
import { analysisSourceTypeColumns } from "./analysis-type.columns.js";
import { Entity } from "../common/entity.js";
import { FEATURES, type ColumnDefinition } from "../catalogue/analysis-source-types.data.js";
import type { SourceConfiguration } from "../catalogue/analysis-types.data.js";
import * as service from "./analysis-type.service.js";

/** Workflow features of analysis source types (wire reference section 7). */
export const Feature = builder.enumType("Feature", { values: FEATURES });
export const SourceScope = builder.enumType("SourceScope", { values: ["CURRENT_PERIOD", "PRIOR_PERIOD", "ANALYSIS"] as const });
export const DetectedDataType = builder.enumType("DetectedDataType", {
  description: "Data type of a column definition; FLOAT64 marks monetary amounts",
  values: ["TEXT", "NUMBER", "DATE", "UNKNOWN", "FLOAT64"] as const,
});

const SourceConfigurationRef = builder.objectRef<SourceConfiguration>("SourceConfiguration").implement({
  fields: (t) => ({
    sourceTypeId: t.exposeID("sourceTypeId"),
    sourceScope: t.field({ type: SourceScope, resolve: (s) => s.sourceScope }),
    required: t.exposeBoolean("required"),
    allowMultiple: t.exposeBoolean("allowMultiple"),
    allowMultipleForPeriodic: t.exposeBoolean("allowMultipleForPeriodic"),
    alternativeRequiredSourceTypes: t.exposeIDList("alternativeRequiredSourceTypes"),
    disableForInterim: t.exposeBoolean("disableForInterim"),
    interimOnly: t.exposeBoolean("interimOnly"),
    postAnalysis: t.exposeBoolean("postAnalysis"),
    tracksAdditionalDataEntries: t.exposeBoolean("tracksAdditionalDataEntries"),
  }),
});

const ColumnDefinitionRef = builder.objectRef<ColumnDefinition>("ColumnDefinition").implement({
  fields: (t) => ({
    platformFieldName: t.exposeString("platformFieldName"),
    platformFieldNameForNonMacGroupings: t.exposeString("platformFieldNameForNonMacGroupings"),
    required: t.exposeBoolean("required"),
    requiredForNonMacGroupings: t.exposeBoolean("requiredForNonMacGroupings"),
    allowBlanks: t.exposeBoolean("allowBlanks"),
    alternativeMappings: t.exposeStringList("alternativeMappings"),
    defaultValue: t.exposeString("defaultValue", { nullable: true }),
    type: t.field({ type: DetectedDataType, resolve: (c) => c.type }),
  }),
});

export const AnalysisType = builder.prismaObject("AnalysisType", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    archived: t.exposeBoolean("archived"),
    interimName: t.exposeString("interimName", { nullable: true }),
    interimSupported: t.exposeBoolean("interimSupported"),
    periodicSupported: t.exposeBoolean("periodicSupported"),
    fundSupported: t.exposeBoolean("fundSupported"),
    accountMappingRequired: t.exposeBoolean("accountMappingRequired"),
    maxPeriod: t.exposeInt("maxPeriod"),
    sourceConfigurations: t.field({ type: [SourceConfigurationRef], resolve: service.sourceConfigurationsOf }),
  }),
});

export const AnalysisSourceType = builder.prismaObject("AnalysisSourceType", {
  interfaces: [Entity],
  fields: (t) => ({
    name: t.exposeString("name"),
    interimName: t.exposeString("interimName", { nullable: true }),
    archived: t.exposeBoolean("archived"),
    features: t.field({ type: [Feature], resolve: (s) => s.features as Array<(typeof FEATURES)[number]> }),
    columnDefinitions: t.field({ type: [ColumnDefinitionRef], resolve: service.columnDefinitionsOf }),
  }),
});

defineCrudFields({
  name: "AnalysisSourceType",
  type: AnalysisSourceType,
  columns: analysisSourceTypeColumns,
  permissions: { read: "api.analysis-source-types.read" },
  service: {
    get: service.getAnalysisSourceType,
    query: service.queryAnalysisSourceTypes,
  },
});

defineCrudFields({
  name: "AnalysisType",
  type: AnalysisType,
  columns: analysisTypeColumns,
  permissions: { read: "api.analysis-types.read" },
  service: {
    get: service.getAnalysisType,
    query: service.queryAnalysisTypes,
  },
});
