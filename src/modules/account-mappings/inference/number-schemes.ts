import type { AccountClass } from "./rules.js";

/**
 * Account number ranges of the common small-business charts. A range gives the class (and, for a
 * few well-known ranges, the group) of the accounts numbered in it. Which scheme a ledger follows is
 * decided once per import (`detectScheme`): the scheme whose ranges agree best with the classes the
 * accounts' names and types already give; numbers alone never pick a scheme, since the same number
 * means different things in different charts (400 is revenue in a US chart, an overhead in Xero's).
 */
interface Band {
  from: number;
  to: number;
  mac: string;
  /** The range names a class (or sub-class), not a group. */
  generic: boolean;
}

export interface NumberScheme {
  name: string;
  /** How many leading digits the scheme reads, and which lengths of digit runs it applies to. */
  digits: number;
  lengths: readonly number[];
  bands: readonly Band[];
}

const band = (from: number, to: number, mac: string, generic = true): Band => ({ from, to, mac, generic });

/** Four-digit charts whose first digit is the class, sub-ranges as in Sage 50 Accounts' (UK) default chart. */
const SAGE_UK: NumberScheme = {
  name: "four-digit, Sage 50 Accounts ranges",
  digits: 4,
  lengths: [4],
  bands: [
    band(0, 999, "1.2.1.3"),
    band(1000, 1099, "1.1.3.3", false),
    band(1100, 1199, "1.1.2.1", false),
    band(1200, 1299, "1.1.1.2", false),
    band(1300, 1999, "1.1.2.3"),
    band(2100, 2199, "2.1.1.1", false),
    band(2200, 2299, "2.1.4.2", false),
    band(2300, 2399, "2.2.1.1", false),
    band(2000, 2999, "2.1.1.3"),
    band(3000, 3999, "3.2.1.1"),
    band(4000, 4899, "4.1.1.1"),
    band(4900, 4999, "4.2.2.3"),
    band(5000, 5999, "5.1.1.1"),
    band(6000, 6099, "5.1.1.2", false),
    band(6100, 6999, "5.2.3.1"),
    band(7000, 7099, "5.2.1.1", false),
    band(7100, 7199, "5.2.2.1", false),
    band(7200, 7299, "5.2.2.2", false),
    band(7300, 7499, "5.2.3.2", false),
    band(7500, 7599, "5.2.4.1", false),
    band(7600, 7699, "5.2.4.2", false),
    band(7900, 7999, "5.3.1.1", false),
    band(8000, 8099, "5.2.5.1", false),
    band(8100, 8199, "5.2.4.6", false),
    band(7000, 9999, "5.2.4.7"),
  ],
};

/** Four- or five-digit charts whose first digit is the class (QuickBooks' and Sage 50 US' usual numbering). */
const US_FOUR_FIVE: NumberScheme = {
  name: "four/five-digit, first digit the class",
  digits: 4,
  lengths: [4, 5, 6],
  bands: [
    band(1000, 1099, "1.1.1.2", false),
    band(1000, 1499, "1.1.2.3"),
    band(1500, 1999, "1.2.1.3"),
    band(2000, 2499, "2.1.1.3"),
    band(2500, 2999, "2.2.4.3"),
    band(3000, 3999, "3.2.1.1"),
    band(4000, 4999, "4.1.1.1"),
    band(5000, 5999, "5.1.1.1"),
    band(6000, 7999, "5.2.4.7"),
    band(8000, 9999, "5.3.2.3"),
  ],
};

/** Xero's default chart (UK, Australia, New Zealand): three digits. */
const XERO: NumberScheme = {
  name: "three-digit, Xero default chart",
  digits: 3,
  lengths: [3],
  bands: [
    band(0, 199, "1.1.1.2"),
    band(200, 259, "4.1.1.1"),
    band(260, 299, "4.2.2.3"),
    band(300, 399, "5.1.1.1"),
    band(400, 599, "5.2.4.7"),
    band(600, 699, "1.1.2.3"),
    band(700, 799, "1.2.1.3"),
    band(800, 899, "2.1.1.3"),
    band(900, 949, "2.2.1.1"),
    band(950, 999, "3.2.1.1"),
  ],
};

/** Three-digit charts whose first digit is the class (Xero US and many small US charts). */
const US_THREE: NumberScheme = {
  name: "three-digit, first digit the class",
  digits: 3,
  lengths: [3],
  bands: [
    band(0, 149, "1.1.2.3"),
    band(150, 199, "1.2.1.3"),
    band(200, 299, "2.1.1.3"),
    band(300, 399, "3.2.1.1"),
    band(400, 499, "4.1.1.1"),
    band(500, 599, "5.1.1.1"),
    band(600, 999, "5.2.4.7"),
  ],
};

export const NUMBER_SCHEMES: readonly NumberScheme[] = [SAGE_UK, US_FOUR_FIVE, XERO, US_THREE];

/** The leading run of digits of an account number ("6100", "6100-20", "6100.1"), or null. */
function digitRun(account: string): string | null {
  const match = /^\s*(\d+)(?:$|[\s\-./:_])/.exec(account);
  return match ? match[1] : null;
}

/** The range of the scheme an account number falls in, if the scheme reads numbers of its length. */
export function bandOf(scheme: NumberScheme, account: string): { accountClass: AccountClass; mac: string; generic: boolean } | null {
  const digits = digitRun(account);
  if (!digits || !scheme.lengths.includes(digits.length)) return null;
  const value = Number(digits.slice(0, scheme.digits));
  const found = scheme.bands.find((b) => value >= b.from && value <= b.to);
  return found ? { accountClass: found.mac[0] as AccountClass, mac: found.mac, generic: found.generic } : null;
}

/** Fewer accounts with a known class than this, in a scheme's ranges, prove nothing. */
const MIN_EVIDENCE = 5;
/** Share of those accounts whose class the ranges must give. */
const MIN_AGREEMENT = 0.75;

/**
 * The scheme the accounts follow: each scheme is tried on the accounts whose class is already known
 * from their names or types (or their confirmed mappings), and the one whose ranges agree best (at
 * least 75% of at least 5 accounts) wins; of schemes that agree as well, the one whose group-level
 * ranges (Sage's 1200-1299 bank accounts, say) name more of those accounts' groups. Null when none fits.
 */
export function detectScheme(known: ReadonlyArray<{ account: string; mac: string }>): NumberScheme | null {
  let best: { scheme: NumberScheme; score: number } | null = null;
  for (const scheme of NUMBER_SCHEMES) {
    let covered = 0;
    let agreed = 0;
    let finer = 0;
    for (const k of known) {
      const b = bandOf(scheme, k.account);
      if (!b) continue;
      covered++;
      if (b.accountClass === k.mac[0]) {
        agreed++;
        if (!b.generic && b.mac === k.mac) finer++;
      }
    }
    if (covered < MIN_EVIDENCE || agreed / covered < MIN_AGREEMENT) continue;
    const score = agreed / covered + (0.1 * finer) / covered;
    if (!best || score > best.score) best = { scheme, score };
  }
  return best?.scheme ?? null;
}
