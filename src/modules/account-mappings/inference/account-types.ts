import type { AccountClass } from "./rules.js";

/**
 * The account types of the common packages' charts of accounts (QuickBooks "Type", Xero "*Type",
 * Sage 50 US "Account Type", generic asset/liability/...), as a chart of accounts source maps them to
 * `account_type`. A type is the package's own classification, so it decides the class; its code is
 * used when the name says nothing finer ("generic": the class's or sub-class's catch-all).
 */
export interface TypeEvidence {
  accountClass: AccountClass;
  mac: string;
  generic: boolean;
}

const TYPES: ReadonlyArray<[RegExp, string, boolean]> = [
  [/^(bank|cash|checking|savings|cash and cash equivalents|cash at bank)$/, "1.1.1.2", false],
  [/^(cash on hand|petty cash)$/, "1.1.1.1", false],
  [/^(accounts? receivables?( a ?r)?|receivables?|a ?r|debtors?|trade receivables?)$/, "1.1.2.1", false],
  [/^(inventory|inventories|stock|stocks)$/, "1.1.3.3", false],
  [/^(prepayments?|prepaid( expenses?)?)$/, "1.1.4.1", false],
  [/^accumulated (depreciation|amortization|amortisation)$/, "1.2.1.7", false],
  [/^(other )?current assets?$/, "1.1.2.3", true],
  [/^(fixed assets?|property,? plant (and|&) equipment|tangible assets?)$/, "1.2.1.3", true],
  [/^(other assets?|non[- ]?current assets?|long[- ]?term assets?|intangible assets?)$/, "1.2.6.1", true],
  [/^(accounts? payables?( a ?p)?|payables?|a ?p|creditors?|trade payables?)$/, "2.1.1.1", false],
  [/^credit cards?$/, "2.1.1.3", false],
  [/^(sales tax|gst|vat|tax)$/, "2.1.4.2", false],
  [/^(other )?current liabilit(y|ies)$/, "2.1.1.3", true],
  [/^(long[- ]?term|non[- ]?current|term) liabilit(y|ies)$/, "2.2.1.1", true],
  [/^equity[- ]?retained earnings$/, "3.2.1.1", false],
  [/^equity[- ]?gets closed$/, "3.2.1.2", false],
  [/^(equity.*|owners? equity|capital|net assets|shareholders? equity)$/, "3.2.1.1", true],
  [/^(other income|other revenue|non[- ]?operating income)$/, "4.2.2.3", true],
  [/^(income|revenue|sales|operating revenue|turnover)$/, "4.1.1.1", true],
  [/^(cost of goods sold|cost of sales|direct costs?|cogs|purchases)$/, "5.1.1.1", true],
  [/^depreciation$/, "5.2.5.1", false],
  [/^other expenses?$/, "5.3.2.3", true],
  [/^(expenses?|overheads?|operating expenses?)$/, "5.2.4.7", true],
];

/** Words that give a class when the type is none of the known ones ("Current Asset - Other"). */
const CLASS_WORDS: ReadonlyArray<[RegExp, string]> = [
  [/\b(assets?|bank|receivables?)\b/, "1.1.2.3"],
  [/\b(liabilit(y|ies)|payables?)\b/, "2.1.1.3"],
  [/\b(equity|capital)\b/, "3.2.1.1"],
  [/\b(income|revenues?|sales)\b/, "4.1.1.1"],
  [/\b(expenses?|costs?|overheads?)\b/, "5.2.4.7"],
];

export function typeEvidence(accountType: string | null | undefined): TypeEvidence | null {
  const text = accountType
    ?.toLowerCase()
    .replace(/[()/'’.]/g, "")
    .replace(/\s+/g, " ")
    .trim();
  if (!text) return null;
  for (const [pattern, mac, generic] of TYPES) if (pattern.test(text)) return { accountClass: mac[0] as AccountClass, mac, generic };
  for (const [pattern, mac] of CLASS_WORDS) if (pattern.test(text)) return { accountClass: mac[0] as AccountClass, mac, generic: true };
  return null;
}
