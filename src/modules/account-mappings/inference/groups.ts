import { conceptsOf } from "./concepts.js";

/** An engagement account group as the inference sees it. */
export interface CandidateGroup {
  code: string;
  lowestLevel: boolean;
  macCode: string | null;
  description: string;
  alias: string | null;
}

/** The engagement's lowest-level groups, indexed once for all the accounts of an import. */
export interface CandidateIndex {
  groupingIsMac: boolean;
  lowest: CandidateGroup[];
  byCode: Map<string, CandidateGroup>;
  byMacCode: Map<string, CandidateGroup[]>;
  /** Exact description or alias, lower case. */
  byText: Map<string, CandidateGroup[]>;
  /** Concepts of each group's description and alias (to tell groups of one MAC code apart). */
  concepts: Map<CandidateGroup, Set<string>>;
  /** The words of a group that, all present in an account's name, point at it (see `wordGroups`). */
  words: Map<CandidateGroup, Set<string>>;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (!list) map.set(key, [value]);
  else if (!list.includes(value)) list.push(value);
}

export function indexCandidates(groups: readonly CandidateGroup[], groupingIsMac: boolean): CandidateIndex {
  const index: CandidateIndex = { groupingIsMac, lowest: [], byCode: new Map(), byMacCode: new Map(), byText: new Map(), concepts: new Map(), words: new Map() };
  for (const g of groups) {
    if (!g.lowestLevel) continue;
    index.lowest.push(g);
    index.byCode.set(g.code, g);
    if (g.macCode) push(index.byMacCode, g.macCode, g);
    push(index.byText, g.description.trim().toLowerCase(), g);
    if (g.alias) push(index.byText, g.alias.trim().toLowerCase(), g);
    index.concepts.set(g, conceptsOf(`${g.description} ${g.alias ?? ""}`));
    const words = groupingIsMac ? (g.alias ? conceptsOf(g.alias) : null) : index.concepts.get(g)!;
    if (words && words.size > 0) index.words.set(g, words);
  }
  return index;
}

/**
 * Groups whose own words all appear in an account's name: a group's alias always counts (an alias is
 * how a user teaches the engagement its client's words), its description only in a grouping of the
 * client's own (the MAC grouping's descriptions are already in the vocabulary). Each with the number
 * of its words, the more the more specific.
 */
export function wordGroups(index: CandidateIndex, account: ReadonlySet<string>): Array<{ group: CandidateGroup; terms: number }> {
  const found: Array<{ group: CandidateGroup; terms: number }> = [];
  for (const [group, words] of index.words) if ([...words].every((w) => account.has(w))) found.push({ group, terms: words.size });
  return found;
}

function overlap(index: CandidateIndex, group: CandidateGroup, account: ReadonlySet<string>): number {
  let n = 0;
  for (const w of index.concepts.get(group) ?? []) if (account.has(w)) n++;
  return n;
}

function commonSegments(a: string, b: string): number {
  const x = a.split(".");
  const y = b.split(".");
  let n = 0;
  while (n < x.length && n < y.length && x[n] === y[n]) n++;
  return n;
}

/**
 * The engagement group for an inferred MAC code: the lowest-level group with that MAC code (of
 * several, the one sharing most words with the account's name, then the first); without one, the
 * group whose MAC code is nearest in the classification (most leading segments in common, at least
 * the class). Null when the grouping has nothing in that class.
 */
export function groupForMac(index: CandidateIndex, mac: string, account: ReadonlySet<string>): CandidateGroup | null {
  const best = (groups: CandidateGroup[]) => groups.reduce((a, b) => (overlap(index, b, account) > overlap(index, a, account) ? b : a));
  const exact = index.byMacCode.get(mac);
  if (exact?.length) return best(exact);
  let nearest: CandidateGroup[] = [];
  let depth = 0;
  for (const g of index.lowest) {
    if (!g.macCode) continue;
    const n = commonSegments(g.macCode, mac);
    if (n > depth) {
      depth = n;
      nearest = [g];
    } else if (n === depth && n > 0) nearest.push(g);
  }
  return depth > 0 ? best(nearest) : null;
}
