import { builder } from "../../graphql/builder.js";
import type { InputFields, InputOf } from "../common/crud-fields.js";
import { FREQUENCIES } from "./engagement.columns.js";

export const Frequency = builder.enumType("Frequency", { values: FREQUENCIES });

export const AccountingPeriodInput = builder.inputType("AccountingPeriodInput", {
  fields: (t) => ({
    fiscalStartDay: t.int({ required: true }),
    fiscalStartMonth: t.int({ required: true }),
    frequency: t.field({ type: Frequency, required: true }),
  }),
});
export type AccountingPeriodInput = InputOf<typeof AccountingPeriodInput>;

export const EmailSubscriptionInput = builder.inputType("EmailSubscriptionInput", {
  fields: (t) => ({
    userId: t.id({ required: true }),
    eventTypes: t.stringList(),
  }),
});
export type EmailSubscriptionInput = InputOf<typeof EmailSubscriptionInput>;

// Spec 2.12; the rule itself lives in engagement.service.ts (periodChoiceProblems).
const PERIOD_DESCRIPTION = "Required unless a reportingPeriodConfigurationId is given or kept; a configuration replaces it (not stored then)";
const CONFIGURATION_DESCRIPTION = "Replaces accountingPeriod when set (takes precedence when both are sent); on update, null clears it and accountingPeriod must then be sent";

/** The fields create and update share. */
const engagementFields = (t: InputFields) => ({
  accountingPackage: t.string(),
  accountingPeriod: t.field({ type: AccountingPeriodInput, description: PERIOD_DESCRIPTION }),
  auditPeriodEndDate: t.field({ type: "Date" }),
  industry: t.string(),
  auditorIds: t.idList(),
  engagementLeadId: t.id(),
  billingCode: t.string(),
  reportingPeriodConfigurationId: t.id({ description: CONFIGURATION_DESCRIPTION }),
});

export const CreateEngagementInput = builder.inputType("CreateEngagementInput", {
  fields: (t) => ({
    organizationId: t.id({ required: true }),
    name: t.string({ required: true }),
    libraryId: t.id({ description: "Defaults to the PLATFORM_FOR_PROFIT system library" }),
    ...engagementFields(t),
    settingsBasedOnEngagementId: t.id(),
  }),
});
export type CreateEngagementInput = InputOf<typeof CreateEngagementInput>;

export const UpdateEngagementInput = builder.inputType("UpdateEngagementInput", {
  fields: (t) => ({
    name: t.string(),
    ...engagementFields(t),
    emailSubscriptions: t.field({ type: [EmailSubscriptionInput], required: true }),
    version: t.int({ required: true }),
  }),
});
export type UpdateEngagementInput = InputOf<typeof UpdateEngagementInput>;
