import { typeEvidence, type TypeEvidence } from "./account-types.js";
import { conceptsOf } from "./concepts.js";
import { groupForMac, wordGroups, type CandidateGroup, type CandidateIndex } from "./groups.js";
import { bandOf, detectScheme, type NumberScheme } from "./number-schemes.js";
import { CATCH_ALL, matchingRules, ruleWeight, type AccountClass, type Rule } from "./rules.js";

/**
 * Which engagement account group a newly discovered account most likely belongs to, from everything
 * the import knows (docs/account-groupings.md, "How accounts are mapped"). In order:
 *
 * 1. a code the source gives that is a lowest-level group code (MAC_CODE on the MAC grouping, else
 *    INFERRED), or a MAC code exactly one lowest-level group maps to;
 * 2. the account number is itself a lowest-level group code;
 * 3. a person's mapping of the same account (and fund) in the organization's most recent earlier
 *    engagement, unless the account's name or type now says another class;
 * 4. the description equals a group's description or alias;
 * 5. the weighing of the evidence: the package's account type, the vocabulary of the name, the
 *    number range of the chart's numbering scheme, the account's debit/credit behaviour in the
 *    ledger: the heaviest class wins and the most precise group of it is taken;
 * 6. otherwise UNMAPPED.
 * Everything but MAC_CODE is INFERRED: a person confirms it (POST /account-mappings/verify).
 */
export interface DiscoveredAccount {
  account: string;
  accountDescription?: string | null;
  fundId?: string | null;
  /** A code the source data gives for the account (a chart of accounts' MAC or group code column). */
  code?: string | null;
  /** The package's account type (a chart of accounts' type column). */
  accountType?: string | null;
  /** Entries of the account in the source, and their debit and credit totals (MONEY_100). */
  entries?: number;
  debits?: number;
  credits?: number;
}

/** A person's mapping of the account in an earlier engagement of the organization. */
export interface PriorMapping {
  account: string;
  fundId: string | null;
  code: string;
  macCode: string | null;
}

export interface InferenceContext {
  candidates: CandidateIndex;
  prior: ReadonlyArray<PriorMapping>;
  /** The engagement's accounts already mapped, with the MAC code of their group (numbering evidence). */
  known: ReadonlyArray<{ account: string; mac: string }>;
}

export type InferredStatus = "MAC_CODE" | "INFERRED" | "UNMAPPED";

export interface Inference {
  code: string | null;
  status: InferredStatus;
  /** What decided it (for people and benchmarks; not stored). */
  basis: string;
}

const UNMAPPED: Inference = { code: null, status: "UNMAPPED", basis: "nothing known" };

/** Weight of the package's account type, of a numbering scheme's range, of one-sided bookings. */
const TYPE_WEIGHT = 4;
const RANGE_WEIGHT = 1.5;
const BEHAVIOUR_WEIGHT = 1;
/** Least weight a class needs to be taken. */
const MIN_WEIGHT = 1.5;
/** Share of an account's total bookings on one side that makes it one-sided. */
const ONE_SIDED = 0.6;

const CLASSES: readonly AccountClass[] = ["1", "2", "3", "4", "5"];

interface Facts {
  concepts: Set<string>;
  rules: Rule[];
  type: TypeEvidence | null;
}

/** Rules from the engagement's own group words: they point at a group rather than a MAC code. */
interface GroupRule extends Rule {
  group: CandidateGroup;
}

function textOf(account: DiscoveredAccount): string {
  // An account "number" with letters in it (QuickBooks names its accounts) is words too.
  const named = /[a-z]{2}/i.test(account.account) ? account.account : "";
  return `${account.accountDescription ?? ""} ${named}`;
}

function factsOf(account: DiscoveredAccount, candidates: CandidateIndex): Facts {
  const concepts = conceptsOf(textOf(account));
  const rules = matchingRules(concepts);
  for (const { group, terms } of wordGroups(candidates, concepts)) {
    if (!group.macCode) continue;
    const groupRule: GroupRule = { mac: group.macCode, accountClass: group.macCode[0] as AccountClass, all: [], none: [], terms, strength: 2.5, generic: false, index: -1, group };
    rules.push(groupRule);
  }
  return { concepts, rules, type: typeEvidence(account.accountType) };
}

/** Debit-heavy accounts are assets or expenses, credit-heavy ones liabilities, equity or revenue. */
function behaviourClasses(account: DiscoveredAccount): readonly AccountClass[] {
  const debits = Math.abs(account.debits ?? 0);
  const credits = Math.abs(account.credits ?? 0);
  const total = debits + credits;
  if (!account.entries || total === 0) return [];
  const lean = (debits - credits) / total;
  if (lean >= ONE_SIDED) return ["1", "5"];
  if (lean <= -ONE_SIDED) return ["2", "3", "4"];
  return [];
}

/** The more precise rule first: more terms, then stronger, then listed earlier (group words first). */
function byPrecision(a: Rule, b: Rule): number {
  return b.terms - a.terms || b.strength - a.strength || a.index - b.index;
}

/** The class the name alone gives, when it is clear (for detecting the numbering scheme). */
function nameClass(facts: Facts): { mac: string } | null {
  if (facts.type) return { mac: facts.type.mac };
  if (facts.concepts.has("noclass")) return null;
  const specific = facts.rules.filter((r) => !r.generic).sort((a, b) => ruleWeight(b) - ruleWeight(a) || byPrecision(a, b));
  const top = specific[0];
  if (!top || ruleWeight(top) < 2) return null;
  const rival = specific.find((r) => r.accountClass !== top.accountClass);
  if (rival && ruleWeight(top) - ruleWeight(rival) < 0.5) return null;
  return { mac: top.mac };
}

/** Step 5: weighs the evidence; the MAC code (or group) of the winning class, or null. */
function weigh(account: DiscoveredAccount, facts: Facts, scheme: NumberScheme | null): { mac: string; group: CandidateGroup | null; basis: string } | null {
  if (facts.concepts.has("noclass") && !facts.type) return null;
  const band = scheme ? bandOf(scheme, account.account) : null;
  const behaviour = behaviourClasses(account);
  const score = new Map<AccountClass, number>(CLASSES.map((c) => [c, 0]));
  const firstRule = new Map<AccountClass, number>();
  for (const r of facts.rules) {
    score.set(r.accountClass, Math.max(score.get(r.accountClass)!, ruleWeight(r)));
    firstRule.set(r.accountClass, Math.min(firstRule.get(r.accountClass) ?? Infinity, r.index));
  }
  if (facts.type) score.set(facts.type.accountClass, score.get(facts.type.accountClass)! + TYPE_WEIGHT);
  if (band) score.set(band.accountClass, score.get(band.accountClass)! + RANGE_WEIGHT);
  for (const c of behaviour) score.set(c, score.get(c)! + BEHAVIOUR_WEIGHT);
  const [winner] = [...CLASSES].sort((a, b) => score.get(b)! - score.get(a)! || (firstRule.get(a) ?? Infinity) - (firstRule.get(b) ?? Infinity));
  if (score.get(winner)! < MIN_WEIGHT) return null;

  const basis = [facts.type?.accountClass === winner && "account type", facts.rules.some((r) => r.accountClass === winner) && "vocabulary", band?.accountClass === winner && `number range (${scheme!.name})`, behaviour.includes(winner) && "debit/credit behaviour"]
    .filter(Boolean)
    .join(" + ");
  const inClass = facts.rules.filter((r) => r.accountClass === winner).sort(byPrecision);
  const specific = inClass.find((r) => !r.generic);
  if (specific) return { mac: specific.mac, group: (specific as GroupRule).group ?? null, basis };
  const type = facts.type?.accountClass === winner ? facts.type : null;
  const inBand = band?.accountClass === winner ? band : null;
  const mac =
    (type && !type.generic && type.mac) ||
    (inBand && !inBand.generic && inBand.mac) ||
    type?.mac ||
    inClass[0]?.mac ||
    inBand?.mac ||
    CATCH_ALL[winner];
  return { mac, group: null, basis };
}

function key(account: string, fundId: string | null | undefined): string {
  return `${account}\u0000${fundId ?? ""}`;
}

/** Infers the group of each account (same order); one call per import, so the scheme is the import's. */
export function inferMappings(accounts: readonly DiscoveredAccount[], context: InferenceContext): Inference[] {
  const { candidates } = context;
  // A fund ledger meets each account once per fund: the words are read once.
  const seen = new Map<string, Facts>();
  const facts = accounts.map((a) => {
    const text = `${textOf(a)}\u0000${a.accountType ?? ""}`;
    let known = seen.get(text);
    if (!known) seen.set(text, (known = factsOf(a, candidates)));
    return known;
  });
  const evidence = [...context.known];
  accounts.forEach((a, i) => {
    const known = nameClass(facts[i]);
    if (known) evidence.push({ account: a.account, mac: known.mac });
  });
  const scheme = detectScheme(evidence);
  const priorByFund = new Map(context.prior.map((p) => [key(p.account, p.fundId), p]));
  const priorByAccount = new Map(context.prior.map((p) => [p.account, p]));

  return accounts.map((account, i) => {
    const given = account.code?.trim();
    if (given) {
      if (candidates.byCode.has(given)) return { code: given, status: candidates.groupingIsMac ? "MAC_CODE" : "INFERRED", basis: "code in the source" };
      const viaMac = candidates.byMacCode.get(given) ?? [];
      if (viaMac.length === 1) return { code: viaMac[0].code, status: "INFERRED", basis: "MAC code in the source" };
    }
    const number = account.account.trim();
    if (candidates.byCode.has(number)) return { code: number, status: "INFERRED", basis: "account number is a group code" };

    const own = facts[i];
    const prior = priorByFund.get(key(account.account, account.fundId)) ?? priorByAccount.get(account.account);
    const fromPrior = prior && priorGroup(prior, own, candidates);
    if (fromPrior) return { code: fromPrior.code, status: "INFERRED", basis: "mapping in an earlier engagement" };

    const description = account.accountDescription?.trim().toLowerCase();
    const named = description ? (candidates.byText.get(description) ?? []) : [];
    if (named.length === 1) return { code: named[0].code, status: "INFERRED", basis: "group description or alias" };

    const weighed = weigh(account, own, scheme);
    const group = weighed && (weighed.group ?? groupForMac(candidates, weighed.mac, own.concepts));
    return group ? { code: group.code, status: "INFERRED", basis: weighed!.basis } : UNMAPPED;
  });
}

/**
 * The group of the same code (and MAC code) in this engagement, else the group of the same MAC code;
 * not when the account's name or type now clearly says another class (a number reused).
 */
function priorGroup(prior: PriorMapping, facts: Facts, candidates: CandidateIndex): CandidateGroup | null {
  const now = nameClass(facts);
  if (now && prior.macCode && now.mac[0] !== prior.macCode[0]) return null;
  const same = candidates.byCode.get(prior.code);
  if (same && same.macCode === prior.macCode) return same;
  return prior.macCode ? groupForMac(candidates, prior.macCode, facts.concepts) : null;
}
