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

export function inferMapping(account: DiscoveredAccount, groups: readonly CandidateGroup[], groupingIsMac: boolean): { code: string | null; status: InferredStatus } {
  const lowest = groups.filter((g) => g.lowestLevel);
  const byCode = new Map(lowest.map((g) => [g.code, g]));
  const given = account.code?.trim();
  if (given) {
    if (byCode.has(given)) return { code: given, status: groupingIsMac ? "MAC_CODE" : "INFERRED" };
    const viaMac = lowest.filter((g) => g.macCode === given);
    if (viaMac.length === 1) return { code: viaMac[0].code, status: "INFERRED" };
  }
  const number = account.account.trim();
  if (byCode.has(number)) return { code: number, status: "INFERRED" };
  const description = account.accountDescription?.trim().toLowerCase();
  if (description) {
    const matches = lowest.filter((g) => g.description.trim().toLowerCase() === description || g.alias?.trim().toLowerCase() === description);
    if (matches.length === 1) return { code: matches[0].code, status: "INFERRED" };
  }
  return { code: null, status: "UNMAPPED" };
}
