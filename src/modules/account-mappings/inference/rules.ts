/**
 * The vocabulary's rules: which concepts of an account's name (concepts.ts) point at which MAC code
 * (the platform's level-4 account classification, seeded as account grouping 5cc9076887f13cb8a7a19300).
 *
 * A rule is a MAC code and a pattern: terms separated by spaces, all of which must be present; a term
 * lists alternatives with "|", and a term starting with "!" must be absent. Its strength is the weight
 * it gives the rule's class (the first digit of the code) when the classes are weighed (infer.ts);
 * a rule with more terms weighs more (+0.75 a term). `hint` rules only name a class (an account called
 * "Other Business Expenses" is an expense, but of no particular group): their code is the class's
 * catch-all, used when nothing more precise is known. docs/account-groupings.md tells the story.
 */
export type AccountClass = "1" | "2" | "3" | "4" | "5";

export interface Rule {
  mac: string;
  accountClass: AccountClass;
  all: ReadonlyArray<ReadonlyArray<string>>;
  none: ReadonlyArray<string>;
  /** How many terms must be present (the more, the more specific). */
  terms: number;
  strength: number;
  /** Names a class, not a group. */
  generic: boolean;
  index: number;
}

const rules: Rule[] = [];

function add(mac: string, pattern: string, strength: number, generic: boolean): void {
  const terms = pattern.split(" ").filter(Boolean);
  const all = terms.filter((t) => !t.startsWith("!")).map((t) => t.split("|"));
  rules.push({
    mac,
    accountClass: mac[0] as AccountClass,
    all,
    none: terms.filter((t) => t.startsWith("!")).flatMap((t) => t.slice(1).split("|")),
    terms: all.length,
    strength,
    generic,
    index: rules.length,
  });
}
const rule = (mac: string, pattern: string, strength = 2) => add(mac, pattern, strength, false);
const hint = (mac: string, pattern: string, strength = 1.5) => add(mac, pattern, strength, true);

// Asset nouns that also name what is spent on them ("Vehicle expenses", "Building repairs"): weak.
const FIXED = "property|equipment|furniture|vehicle|computer|fixedasset|land";

// ---- Assets -------------------------------------------------------------------------------------
rule("1.1.1.1", "pettycash", 3);
rule("1.1.2.3", "cardreceipts", 3);
rule("1.1.1.3", "shortterm deposit|investment !customerdeposit");
rule("1.1.1.2", "bank !loan|overdraft|interest|fxresult", 2.5);
rule("1.1.1.2", "cash", 2);
rule("1.1.2.2", "allowance|provision baddebt|receivable", 2);
rule("1.1.2.4", "related receivable|advance !payable", 2);
rule("1.1.2.3", "employee advance|loan|receivable");
rule("1.2.6.1", "longterm receivable|note !payable");
rule("1.1.2.3", "note|interest|general|tax receivable");
rule("1.1.2.1", "receivable", 2.5);
rule("1.1.3.2", "wip", 2.5);
rule("1.1.3.3", "finishedgoods", 2.5);
rule("1.1.3.1", "rawmaterials inventory");
rule("1.1.3.1", "rawmaterials", 1.6);
rule("1.1.3.4", "inventory provision|allowance|obsolescence");
rule("1.1.3.3", "inventory", 2.5);
rule("1.1.4.1", "prepaid", 3);
rule("1.1.4.3", "tax refund|recoverable|receivable");
rule("1.2.6.2", "longterm deposit");
rule("1.1.4.2", "deposit !customerdeposit|bank", 1.8);
rule("1.1.2.3", "advance !customerdeposit", 1.5);
rule("1.1.5.1", "marketable|trading investment");
rule("1.2.3.1", "investment subsidiary");
rule("1.2.3.2", "investment associate|joint");
rule("1.2.3.3", "investment", 1.8);
rule("1.2.1.7", "accumulated depreciation", 2.5);
rule("1.2.2.4", "accumulated amortization", 2.5);
rule("1.2.4.2", "rightofuse depreciation");
rule("1.2.4.1", "rightofuse", 2.5);
rule("1.2.1.7", `${FIXED} depreciation !expense|charge|cost`, 1.6);
rule("1.2.2.4", "intangible|goodwill|software|patent amortization !expense|charge|cost", 1.6);
rule("1.2.2.1", "goodwill", 2.5);
rule("1.2.2.3", "patent|intangible", 2);
rule("1.2.1.1", "land", 1.6);
rule("1.2.1.2", "property", 1.6);
rule("1.2.1.6", "computer", 1.6);
rule("1.2.1.5", "vehicle", 1.6);
rule("1.2.1.4", "furniture", 1.6);
rule("1.2.1.3", "equipment|fixedasset", 1.6);
rule("1.2.5.1", "deferred tax asset");
hint("1.2.6.1", "longterm asset", 1.8);
hint("1.1.2.3", "asset");

// ---- Liabilities --------------------------------------------------------------------------------
rule("2.1.1.3", "creditcard", 2.5);
rule("2.1.1.3", "expenseclaims", 3);
rule("2.1.5.1", "deferredrevenue", 3);
rule("2.1.5.2", "customerdeposit", 3);
rule("2.1.2.1", "overdraft", 3);
rule("2.1.2.3", "currentportion loan|note|liability|rent");
rule("2.1.6.1", "rent liability !longterm");
rule("2.2.2.1", "rent liability longterm");
rule("2.2.2.1", "hirepurchase !interest", 2);
rule("2.1.1.4", "related payable|loan|liability");
rule("2.2.1.3", "related loan longterm");
rule("2.1.2.2", "loan shortterm|payable !longterm|interest|related");
rule("2.2.1.2", "note|bond payable");
rule("2.2.1.1", "loan !interest|receivable|employee|advance", 2);
rule("2.1.4.2", "salestax", 2.5);
rule("2.1.4.1", "incometax payable|provision|liability|accrual|due");
rule("2.2.3.1", "deferred tax !asset");
rule("2.1.4.1", "incometax", 1.2);
rule("2.1.4.2", "tax payable|liability|accrual !salary|employee");
rule("2.1.3.2", "payrolltax payable|liability|accrual");
rule("2.1.3.2", "payrolltax !employer|expense|cost", 1.8);
rule("2.1.3.2", "salary tax payable|liability");
rule("2.1.3.2", "salary liability");
rule("2.1.3.1", "salary payable|accrual|net|liability");
rule("2.1.3.3", "pension|benefit|deduction payable|fund|liability|accrual");
rule("2.1.3.3", "deduction");
rule("2.1.1.2", "accrual", 2.5);
rule("2.1.1.3", "dividend payable");
rule("2.1.1.3", "general payable");
rule("2.1.7.1", "warranty provision|liability");
rule("2.2.4.2", "pension liability|obligation longterm");
rule("2.1.7.2", "provision !baddebt|depreciation|inventory", 1.5);
rule("2.1.1.1", "payable", 2.5);
hint("2.2.4.3", "longterm liability", 1.8);
hint("2.1.1.3", "liability");

// ---- Equity -------------------------------------------------------------------------------------
rule("3.1.1.1", "sharecapital", 3);
rule("3.1.1.2", "preferredshares", 3);
rule("3.1.1.3", "sharepremium", 3);
rule("3.1.1.4", "treasuryshares", 3);
rule("3.2.1.1", "retainedearnings|openingequity", 3);
rule("3.2.1.2", "drawings", 3);
rule("3.1.1.1", "ownercapital", 3);
rule("3.2.2.1", "revaluation reserve");
rule("3.2.2.2", "translation reserve");
rule("3.2.2.3", "comprehensive");
rule("3.3.1.1", "noncontrolling|minority");
rule("3.2.1.2", "dividend !income|received|payable");
rule("3.2.1.1", "reserve", 2);
hint("3.1.1.1", "capital", 1.5);
hint("3.2.1.1", "equity", 2);

// ---- Revenue ------------------------------------------------------------------------------------
rule("4.2.1.1", "interest income|received");
rule("4.2.1.1", "latepayment");
rule("4.2.1.1", "interest", 0.5);
rule("4.2.1.2", "dividend income|received");
rule("4.2.2.1", "assetdisposal", 2.5);
rule("4.2.2.2", "fxresult gain|income !loss");
rule("4.2.2.3", "insuranceclaim", 2.5);
rule("4.1.3.1", "rent income|received");
rule("4.1.3.2", "royalty income|received");
rule("4.1.2.2", "subscription income|sale");
rule("4.1.2.1", "commission income|received");
rule("4.1.2.1", "fee income|received|billed");
rule("4.1.2.1", "job|consulting|service income");
rule("4.1.1.2", "sale return|allowance");
rule("4.1.1.2", "return allowance !purchase");
rule("4.1.1.3", "sale discount");
rule("4.2.2.3", "general income");
rule("4.1.2.1", "billed", 2.5);
rule("4.1.2.1", "service", 2.2);
rule("4.1.1.1", "markup", 2);
rule("4.1.1.1", "sale !return|discount|commission|salestax", 1.8);
hint("4.1.1.1", "income|received", 1.5);

// ---- Expenses -----------------------------------------------------------------------------------
rule("5.1.1.2", "directlabour", 3);
rule("5.1.1.2", "cogs|job labour|salary");
rule("5.1.1.4", "cogs freight");
rule("5.1.1.1", "cogs|stockmovement", 3);
rule("5.1.2.2", "directcost", 3);
rule("5.1.2.1", "subcontractor", 2.5);
rule("5.1.1.1", "purchase discount|return");
rule("5.1.1.1", "job material|supply");
rule("5.1.1.1", "purchase|material", 2);
rule("5.1.1.2", "labour", 2);
rule("5.1.1.5", "inventory writeoff|impairment");
rule("5.2.1.3", "employer payrolltax");
rule("5.2.1.3", "payrolltax expense|cost");
rule("5.2.1.3", "salary tax");
rule("5.2.1.3", "payrolltax", 1.8);
rule("5.2.1.5", "pension", 2);
rule("5.2.1.4", "benefit", 2);
rule("5.2.1.2", "commission|bonus", 2);
rule("5.2.1.1", "salary", 2);
rule("5.2.4.5", "bankcharges", 3);
rule("5.3.1.2", "interest hirepurchase|rent");
rule("5.3.1.1", "interest paid|expense|charge|loan|cost|finance");
rule("5.3.1.1", "interest", 0.5);
rule("5.3.2.2", "fxresult", 2.5);
rule("5.3.2.3", "cashovershort", 3);
rule("5.3.2.3", "penalty", 2);
rule("5.2.4.6", "baddebt", 2);
rule("5.2.5.2", "amortization", 2);
rule("5.2.5.3", "impairment|writeoff", 2);
rule("5.2.5.1", "depreciation", 2);
rule("5.4.1.2", "deferred incometax|tax expense");
rule("5.4.1.1", "incometax expense|charge");
rule("5.4.1.1", "incometax", 1.2);
rule("5.2.4.3", "insurance", 2);
rule("5.2.3.2", "fuel", 2);
rule("5.2.4.4", "telecom", 2);
rule("5.2.4.1", "postage", 2);
rule("5.1.1.4", "freight", 2);
rule("5.2.2.2", "utility", 2);
rule("5.2.2.1", "rent !income|received|liability", 2);
rule("5.2.2.3", "repair|cleaning", 2);
rule("5.2.2.3", "premises", 1.8);
rule("5.2.3.1", "advertising", 2);
rule("5.2.3.2", "travel", 2);
rule("5.2.3.2", "vehicle", 1.4);
rule("5.2.4.1", "office supply|expense|printing");
rule("5.2.4.1", "printing|supply", 2);
rule("5.2.4.1", "office", 1.2);
rule("5.2.4.2", "legal|accounting|consulting|professional", 2);
rule("5.2.4.7", "donation|subscription|training|licence", 2);
rule("5.2.4.4", "software", 1.4);
rule("5.4.1.1", "tax expense");
rule("5.2.4.7", "tax", 0.5);
hint("5.2.4.7", "expense", 2);
hint("5.2.4.7", "cost|charge|fee", 1.5);
hint("5.2.4.7", "general", 1.5);

export const RULES: readonly Rule[] = rules;

/** The rules whose terms the concepts satisfy. */
export function matchingRules(concepts: ReadonlySet<string>): Rule[] {
  return RULES.filter((r) => r.all.every((alternatives) => alternatives.some((a) => concepts.has(a))) && !r.none.some((n) => concepts.has(n)));
}

/** What a matched rule weighs for its class: its strength, and more for each further term. */
export function ruleWeight(rule: Rule): number {
  return rule.strength + 0.75 * (rule.terms - 1);
}

/** The catch-all MAC code of each class and of each level-2 group, when nothing finer is known. */
export const CATCH_ALL: Readonly<Record<string, string>> = {
  "1": "1.1.2.3",
  "1.1": "1.1.2.3",
  "1.2": "1.2.6.1",
  "2": "2.1.1.3",
  "2.1": "2.1.1.3",
  "2.2": "2.2.4.3",
  "3": "3.2.1.1",
  "3.1": "3.1.1.1",
  "3.2": "3.2.1.1",
  "4": "4.1.1.1",
  "4.1": "4.1.1.1",
  "4.2": "4.2.2.3",
  "5": "5.2.4.7",
  "5.1": "5.1.1.1",
  "5.2": "5.2.4.7",
  "5.3": "5.3.2.3",
  "5.4": "5.4.1.1",
};
