import { DEFAULT_MANUAL_ENTRY_VALUES, DEFAULT_SUSPICIOUS_KEYWORDS } from "./general-ledger.js";
import type { ControlPointDefinition, ControlPointKind, RequiredField, SettingDefinition } from "./types.js";

type Side = "AP" | "AR";

/** Words of `entry_type` marking a payment (cash out for payables, cash in for receivables). */
export const DEFAULT_PAYMENT_TYPES = ["payment", "pmt", "check", "cheque", "cash", "wire", "eft", "ach", "receipt"];

interface Spec {
  key: string;
  displayName: string;
  kind: ControlPointKind;
  weight: number;
  requires?: RequiredField[];
  settings?: Record<string, SettingDefinition>;
  summary: string;
}

const party = (side: Side) => (side === "AP" ? "vendor" : "customer");

/**
 * Payables and receivables control points (control-points.md: names, kinds, entry level and the
 * documented default weights, summing to 146 for AP and 136 for AR). The platform's symbolic names
 * were not found; ours are `ap_entry_<name>` and `ar_entry_<name>`.
 */
function subledgerPoints(side: Side): ControlPointDefinition[] {
  const p = party(side);
  const P = p[0].toUpperCase() + p.slice(1);
  const specs: Spec[] = [
    {
      key: "two_digit_benford",
      displayName: "2 Digit Benford",
      kind: "STATISTICAL",
      weight: 5,
      settings: {
        minimumEntries: { type: "INTEGER", default: 500, min: 50, description: "Entries of at least 10.00 needed for the test to run" },
        excessRatio: { type: "NUMBER", default: 1.5, min: 1, max: 100, description: "Observed over expected frequency at which the score reaches 5000" },
        minimumZ: { type: "NUMBER", default: 3, min: 0, max: 100, description: "Significance (z statistic) an excess needs" },
      },
      summary: "The first two digits of the amount occur significantly more often than Benford's law expects.",
    },
    {
      key: "activity_flurry",
      displayName: "Activity Flurry",
      kind: "MACHINE_LEARNING",
      weight: 10,
      settings: {
        minimumEntries: { type: "INTEGER", default: 5, min: 2, description: `Entries a ${p} needs on one day to count as a flurry` },
        zFrom: { type: "NUMBER", default: 2, min: 0, max: 100, description: "Deviation of the day's count from the party's usual days where the score starts" },
        zTo: { type: "NUMBER", default: 4, min: 0, max: 100, description: "Deviation where it reaches 10000" },
      },
      summary: `The ${p} has a burst of entries on the entry's effective date, far above its usual daily activity.`,
    },
    {
      key: "cash_expenditure",
      displayName: side === "AP" ? "Cash Expenditure" : "Cash Receipt",
      kind: "RULES_BASED",
      weight: 1,
      settings: { paymentTypes: { type: "STRING_LIST", default: DEFAULT_PAYMENT_TYPES, description: "Words of the entry type that mark a cash payment or receipt" } },
      summary: side === "AP" ? "The entry is a cash payment to the vendor." : "The entry is a cash receipt from the customer.",
    },
    ...(side === "AP"
      ? [
          {
            key: "vendor_debit_balance",
            displayName: "Vendor with a Debit Balance",
            kind: "RULES_BASED" as const,
            weight: 10,
            summary: "After the entry the vendor's balance (opening balance plus entries so far) is a debit: more paid than invoiced.",
          },
        ]
      : []),
    {
      key: "duplicate_document",
      displayName: "Duplicate Document",
      kind: "RULES_BASED",
      weight: 5,
      summary: `Another entry of the same ${p} carries the same document (invoice id) and amount.`,
    },
    { key: "empty_text_field", displayName: "Empty Text Field", kind: "RULES_BASED", weight: 5, requires: ["memo"], summary: "The memo is blank." },
    {
      key: "end_of_analysis_period",
      displayName: "End of Analysis Period",
      kind: "RULES_BASED",
      weight: 5,
      settings: { days: { type: "INTEGER", default: 5, min: 0, max: 366, description: "Last days of the analysis period that fire it" } },
      summary: "The entry is effective in the last days of the analysis period.",
    },
    {
      key: "end_of_reporting_period",
      displayName: "End of Reporting Period",
      kind: "RULES_BASED",
      weight: 5,
      settings: { days: { type: "INTEGER", default: 3, min: 0, max: 366, description: "Last days of a reporting period (month) that fire it" } },
      summary: "The entry is effective in the last days of its reporting period (month).",
    },
    {
      key: "high_monetary_value",
      displayName: "High Monetary Value",
      kind: "RULES_BASED",
      weight: 5,
      settings: {
        threshold: { type: "MONEY", default: null, min: 0, description: "Absolute amount (MONEY_100) that fires it; unset: the 99.5th percentile of absolute amounts" },
        percentile: { type: "NUMBER", default: 0.995, min: 0.5, max: 1, description: "Percentile used when no threshold is set" },
      },
      summary: "The absolute amount is at or above the high monetary value threshold.",
    },
    {
      key: "invoice_created_after_effective_date",
      displayName: "Invoice Created After Effective Date",
      kind: "STATISTICAL",
      weight: 5,
      requires: ["invoice_date"],
      settings: { fullScoreDays: { type: "INTEGER", default: 30, min: 1, max: 3660, description: "Days of invoice date after effective date at which the score reaches 10000 (graded from 0 at the same day)" } },
      summary: "The invoice is dated after the entry's effective date (the entry was booked before its document existed).",
    },
    {
      key: side === "AP" ? "invoice_from_related_party" : "invoice_to_related_party",
      displayName: side === "AP" ? "Invoice From Related Party" : "Invoice to Related Party",
      kind: "RULES_BASED",
      weight: 5,
      settings: { relatedParties: { type: "STRING_LIST", default: [], description: `${P} ids or names (any case) of related parties; accounts tagged related_party also fire it` } },
      summary: `The ${p} is a related party (listed in the settings, or the entry's account is tagged related_party).`,
    },
    {
      key: "invoice_out_of_order",
      displayName: "Invoice Out Of Order",
      kind: "MACHINE_LEARNING",
      weight: 5,
      requires: ["invoice_id"],
      settings: {},
      summary: `The invoice number is lower than that of an earlier invoice of the same ${p} (by invoice date, else effective date).`,
    },
    {
      key: "last_3_digits",
      displayName: "Last 3 Digits",
      kind: "RULES_BASED",
      weight: 5,
      settings: {
        patterns: { type: "STRING_LIST", default: ["000", "999"], description: "Last three whole digits that fire it" },
        minimumAmount: { type: "MONEY", default: 100000, min: 0, description: "Smallest absolute amount tested (MONEY_100)" },
      },
      summary: "The amount has no cents and ends in 000 or 999.",
    },
    {
      key: "manual_entry",
      displayName: "Manual Entry",
      kind: "RULES_BASED",
      weight: 5,
      requires: ["type"],
      settings: { values: { type: "STRING_LIST", default: DEFAULT_MANUAL_ENTRY_VALUES, description: "Words of the entry type marking a manual entry" } },
      summary: "The entry type names it manual.",
    },
    {
      key: "memo_with_different_period",
      displayName: "Memo With Different Period",
      kind: "STATISTICAL",
      weight: 5,
      requires: ["memo"],
      settings: {},
      summary: "The memo names a month (and year) other than the entry's effective month: one month off scores 5000, more 10000.",
    },
    {
      key: "old_unpaid_invoice",
      displayName: "Old Unpaid Invoice",
      kind: "RULES_BASED",
      weight: 10,
      requires: ["invoice_id"],
      settings: { ageDays: { type: "INTEGER", default: 90, min: 1, max: 3660, description: "Age (days from invoice date, else effective date, to the analysis period end) of an unpaid invoice that fires it" } },
      summary: "The invoice is still (partly) unpaid at the end of the analysis period and older than the age limit.",
    },
    {
      key: "suspicious_keyword",
      displayName: "Suspicious Keyword",
      kind: "RULES_BASED",
      weight: 5,
      requires: ["memo"],
      settings: { keywords: { type: "STRING_LIST", default: DEFAULT_SUSPICIOUS_KEYWORDS, description: "Words looked for in the memo" } },
      summary: "The memo holds a word from the suspicious keyword list.",
    },
    {
      key: side === "AP" ? "unusual_amount_by_vendor" : "unusual_amount_by_customer",
      displayName: `Unusual Amount by ${P}`,
      kind: "MACHINE_LEARNING",
      weight: 40,
      settings: {
        minimumEntries: { type: "INTEGER", default: 10, min: 3, description: `Entries a ${p} needs before its amounts are judged` },
        zFrom: { type: "NUMBER", default: 2, min: 0, max: 100, description: "Deviation (log scale) where the score starts" },
        zTo: { type: "NUMBER", default: 4, min: 0, max: 100, description: "Deviation where it reaches 10000" },
      },
      summary: `The amount is far from the ${p}'s usual amounts (log scale).`,
    },
    {
      key: side === "AP" ? "vendor_not_in_vendor_list" : "customer_not_in_customer_list",
      displayName: `${P} Not in ${P} List`,
      kind: "RULES_BASED",
      weight: 10,
      requires: ["party_list"],
      settings: {},
      summary: `The ${p} is absent from the ${p} list source.`,
    },
  ];
  const prefix = side === "AP" ? "ap_entry_" : "ar_entry_";
  return specs.map((s) => ({
    name: prefix + s.key,
    displayName: s.displayName,
    kind: s.kind,
    level: "ENTRY",
    defaultWeight: s.weight,
    platformName: false,
    requires: s.requires ?? [],
    settings: s.settings ?? {},
    summary: s.summary,
  }));
}

export const AP_CONTROL_POINTS: readonly ControlPointDefinition[] = subledgerPoints("AP");
export const AR_CONTROL_POINTS: readonly ControlPointDefinition[] = subledgerPoints("AR");
