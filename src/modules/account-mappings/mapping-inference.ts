/**
 * Which engagement account group a newly discovered account most likely belongs to. Only the
 * engagement's lowest-level groups are candidates. In order:
 *
 * 1. the source file named a code (e.g. a chart of accounts with a MAC/group column) that is a
 *    lowest-level group code -> MAC_CODE when the grouping is the MAC tree itself, else INFERRED;
 *    a MAC code that exactly one lowest-level group maps to -> INFERRED;
 * 2. the account number is itself a lowest-level group code -> INFERRED;
 * 3. the account description equals a group's description or alias (ignoring case) -> INFERRED;
 * 4. otherwise UNMAPPED.
 */
export interface CandidateGroup {
  code: string;
  lowestLevel: boolean;
  macCode: string | null;
  description: string;
  alias: string | null;
}

export interface DiscoveredAccount {
  account: string;
  accountDescription?: string | null;
  fundId?: string | null;
  /** A code the source data gives for the account, if any. */
  code?: string | null;
}

export type InferredStatus = "MAC_CODE" | "INFERRED" | "UNMAPPED";

/** The engagement's lowest-level groups indexed once for all the accounts of an import. */
export interface CandidateIndex {
  byCode: Map<string, CandidateGroup>;
  byMacCode: Map<string, CandidateGroup[]>;
  byText: Map<string, CandidateGroup[]>;
}

export function indexCandidates(groups: readonly CandidateGroup[]): CandidateIndex {
  const index: CandidateIndex = { byCode: new Map(), byMacCode: new Map(), byText: new Map() };
  const add = (map: Map<string, CandidateGroup[]>, key: string, group: CandidateGroup) => {
    const list = map.get(key);
    if (!list) map.set(key, [group]);
    else if (!list.includes(group)) list.push(group);
  };
  for (const g of groups) {
    if (!g.lowestLevel) continue;
    index.byCode.set(g.code, g);
    if (g.macCode) add(index.byMacCode, g.macCode, g);
    add(index.byText, g.description.trim().toLowerCase(), g);
    if (g.alias) add(index.byText, g.alias.trim().toLowerCase(), g);
  }
  return index;
}

export function inferMapping(account: DiscoveredAccount, candidates: CandidateIndex, groupingIsMac: boolean): { code: string | null; status: InferredStatus } {
  const given = account.code?.trim();
  if (given) {
    if (candidates.byCode.has(given)) return { code: given, status: groupingIsMac ? "MAC_CODE" : "INFERRED" };
    const viaMac = candidates.byMacCode.get(given) ?? [];
    if (viaMac.length === 1) return { code: viaMac[0].code, status: "INFERRED" };
  }
  const number = account.account.trim();
  if (candidates.byCode.has(number)) return { code: number, status: "INFERRED" };
  const description = account.accountDescription?.trim().toLowerCase();
  if (description) {
    const matches = candidates.byText.get(description) ?? [];
    if (matches.length === 1) return { code: matches[0].code, status: "INFERRED" };
  }
  return { code: null, status: "UNMAPPED" };
}
