// The transactions of a journal, summed while it is staged (issue 15 point 2). Grouping the staged
// rows by transaction id was the longest statement after the upload (a hash aggregation of every
// row, about 1.5 s of backend CPU per million lines); the staging pass already holds every row's
// fields and typed shadows, so it sums them per transaction on the way, for the column its header
// marks as the transaction id. The mapping is not known yet while staging: this is a speculation,
// recorded with the positions it assumed, and used only when the source's final mapping and
// selection read exactly those columns through the same shadows (`aggregateServes`); otherwise the
// transactions are grouped in SQL as before.
//
// Memory stays flat: journals list a transaction's lines together, so only the current
// transaction is open; the aggregate is encoded for COPY as each one closes (about 45 bytes per
// transaction). A transaction id met again after another one (lines not together), a key that is
// not plain printable ASCII, or a sum beyond 2^53 abandons the speculation (`failed`).
import { headerScore } from "../mapping/recommend.js";
import type { ShadowSpec } from "../profile/profiler.js";
import type { RecordView } from "../csv/tokenizer.js";
import { qualifiedTable } from "../sql/identifiers.js";

/** What the aggregate assumed (file column positions) and where it is. */
export interface TransactionAggregateSpec {
  /** The transaction id column (its staged text, blank as NULL). */
  key: number;
  /** The signed amount: `amount`, else `debit` minus `credit` (each a MONEY_100 shadow). */
  amount: number | null;
  debit: number | null;
  credit: number | null;
  /** DATE shadows. */
  effectiveDate: number | null;
  entryDate: number | null;
}

/** A staged aggregate: its spec and how many transactions it holds. */
export interface StagedTransactionAggregate extends TransactionAggregateSpec {
  transactions: number;
}

/** The aggregate's table beside a staging table: created, filled and dropped with it. */
export function aggregateTable(staging: string): string {
  return `${staging}_agg`;
}

/** Columns of the aggregate table (dates as days since 2000-01-01, as the shadows). */
export const AGGREGATE_COLUMNS = "row_no bigint, txid text, n bigint, debit bigint, credit bigint, eff_lo integer, eff_hi integer, entry_lo integer";

const FIELDS = ["txid", "effective_date", "entry_date", "debit", "credit", "amount"] as const;
const TYPES: Record<(typeof FIELDS)[number], "TEXT" | "DATE" | "FLOAT64"> = {
  txid: "TEXT",
  effective_date: "DATE",
  entry_date: "DATE",
  debit: "FLOAT64",
  credit: "FLOAT64",
  amount: "FLOAT64",
};
const MIN_SCORE = 0.35;

/**
 * The columns a general ledger's recommended mapping is expected to use, from the header alone:
 * the best-named column per field (a date field needs a DATE shadow, an amount a MONEY_100 one,
 * the transaction id neither). Null when the header names no transaction id, effective date or
 * amount: nothing is aggregated then.
 */
export function planTransactionAggregate(names: string[], shadows: ShadowSpec[]): TransactionAggregateSpec | null {
  const pairs: { field: (typeof FIELDS)[number]; position: number; score: number }[] = [];
  for (const field of FIELDS) {
    const type = TYPES[field];
    names.forEach((name, position) => {
      const shadow = shadows[position];
      const fits = type === "TEXT" ? !shadow : type === "DATE" ? shadow?.kind === "DATE" : shadow?.kind === "MONEY_100";
      if (!fits) return;
      const score = headerScore(name, { platformFieldName: field, type, required: false });
      if (score >= MIN_SCORE) pairs.push({ field, position, score });
    });
  }
  pairs.sort((a, b) => b.score - a.score);
  const chosen = new Map<string, number>();
  const used = new Set<number>();
  for (const p of pairs) {
    if (chosen.has(p.field) || used.has(p.position)) continue;
    chosen.set(p.field, p.position);
    used.add(p.position);
  }
  const key = chosen.get("txid");
  const effectiveDate = chosen.get("effective_date");
  const debit = chosen.get("debit") ?? null;
  const credit = chosen.get("credit") ?? null;
  const amount = debit === null && credit === null ? (chosen.get("amount") ?? null) : null;
  if (key === undefined || effectiveDate === undefined || (amount === null && debit === null && credit === null)) return null;
  return { key, amount, debit, credit, effectiveDate, entryDate: chosen.get("entry_date") ?? null };
}

const MAX_EXACT = 2 ** 53;
const NONE = 0x7fffffff;
const OUT_CHUNK = 1 << 20;

/**
 * Sums the staged rows per transaction (rows in file order, as staged) and encodes one line per
 * transaction for `COPY ... (FORMAT text)` into an `AGGREGATE_COLUMNS` table.
 */
export class TransactionAggregator {
  failed: string | null = null;
  transactions = 0;
  private open = false;
  private keyBytes = new Uint8Array(256);
  private keyLength = -1; // -1: NULL key
  private firstRow = 0;
  private n = 0;
  private debit = 0;
  private credit = 0;
  private effLo = NONE;
  private effHi = -NONE;
  private entryLo = NONE;
  /** Open-addressing set of 64-bit key hashes (two int32 lanes; 0,0 = empty) of closed transactions. */
  private table = new Int32Array(2 * (1 << 16));
  private size = 0;
  private nullSeen = false;
  private out = Buffer.allocUnsafe(OUT_CHUNK);
  private pos = 0;
  private ready: Buffer[] = [];

  constructor(private readonly spec: TransactionAggregateSpec) {}

  add(record: RecordView, set: Uint8Array, value: Float64Array): void {
    if (this.failed) return;
    const { buf, starts, ends, count } = record;
    const f = this.spec.key;
    let s = 0;
    let e = 0;
    if (f < count) {
      s = starts[f];
      e = ends[f];
      if (e > s && !this.plain(buf, s, e)) return this.fail("a transaction id is not plain ASCII");
    }
    const blank = e === s;
    if (!this.open || !this.sameKey(buf, s, e, blank)) {
      if (this.open) this.close();
      if (this.failed) return;
      if (blank ? this.nullSeen : this.seen(buf, s, e)) return this.fail("the lines of a transaction are not together");
      this.start(buf, s, e, blank, record.index);
    }
    this.n++;
    const sp = this.spec;
    let a: number;
    if (sp.amount !== null) a = set[sp.amount] === 1 ? value[sp.amount] : 0;
    else a = (sp.debit !== null && set[sp.debit] === 1 ? value[sp.debit] : 0) - (sp.credit !== null && set[sp.credit] === 1 ? value[sp.credit] : 0);
    if (a > 0) this.debit += a;
    else if (a < 0) this.credit -= a;
    if (this.debit >= MAX_EXACT || this.credit >= MAX_EXACT) return this.fail("a sum exceeds 2^53");
    if (sp.effectiveDate !== null && set[sp.effectiveDate] === 1) {
      const d = value[sp.effectiveDate];
      if (d < this.effLo) this.effLo = d;
      if (d > this.effHi) this.effHi = d;
    }
    if (sp.entryDate !== null && set[sp.entryDate] === 1) {
      const d = value[sp.entryDate];
      if (d < this.entryLo) this.entryLo = d;
    }
  }

  /** Encoded lines so far (with `all`, everything: the last transaction is closed first). */
  take(all = false): Buffer[] {
    if (all && this.open && !this.failed) {
      this.close();
      this.open = false;
    }
    if (this.failed) {
      this.ready = [];
      this.pos = 0;
      return [];
    }
    if (all && this.pos > 0) {
      this.ready.push(this.out.subarray(0, this.pos));
      this.out = Buffer.allocUnsafe(OUT_CHUNK);
      this.pos = 0;
    }
    const taken = this.ready;
    this.ready = [];
    return taken;
  }

  private fail(reason: string): void {
    this.failed = reason;
    this.ready = [];
    this.table = new Int32Array(2);
  }

  /** Printable ASCII without a leading or trailing space (staged as it is whether the row is passed through or rebuilt). */
  private plain(buf: Uint8Array, s: number, e: number): boolean {
    if (buf[s] === 0x20 || buf[e - 1] === 0x20) return false;
    for (let k = s; k < e; k++) {
      const b = buf[k];
      if (b < 0x20 || b > 0x7e || b === 0x5c) return false;
    }
    return true;
  }

  private sameKey(buf: Uint8Array, s: number, e: number, blank: boolean): boolean {
    if (blank) return this.keyLength === -1;
    if (this.keyLength !== e - s) return false;
    const key = this.keyBytes;
    for (let k = 0; k < this.keyLength; k++) if (key[k] !== buf[s + k]) return false;
    return true;
  }

  private start(buf: Uint8Array, s: number, e: number, blank: boolean, row: number): void {
    this.open = true;
    if (blank) {
      this.keyLength = -1;
      this.nullSeen = true;
    } else {
      if (e - s > this.keyBytes.length) this.keyBytes = new Uint8Array(2 * (e - s));
      this.keyBytes.set(buf.subarray(s, e));
      this.keyLength = e - s;
      this.remember(buf, s, e);
    }
    this.firstRow = row;
    this.n = 0;
    this.debit = 0;
    this.credit = 0;
    this.effLo = NONE;
    this.effHi = -NONE;
    this.entryLo = NONE;
  }

  /** Two 32-bit FNV-1a lanes with different seeds, never both 0. */
  private hash(buf: Uint8Array, s: number, e: number): [number, number] {
    let h1 = 0x811c9dc5 | 0;
    let h2 = 0x050c5d1f | 0;
    for (let k = s; k < e; k++) {
      h1 = Math.imul(h1 ^ buf[k], 0x01000193);
      h2 = Math.imul(h2 ^ buf[k], 0x01000193) ^ (h2 >>> 15);
    }
    return [h1 | 0 || 1, h2 | 0];
  }

  /** Whether the key's hash was met before (a repeat, or a hash collision: either way the speculation ends). */
  private seen(buf: Uint8Array, s: number, e: number): boolean {
    const [h1, h2] = this.hash(buf, s, e);
    const t = this.table;
    const mask = t.length / 2 - 1;
    for (let i = h1 & mask; ; i = (i + 1) & mask) {
      if (t[2 * i] === 0 && t[2 * i + 1] === 0) return false;
      if (t[2 * i] === h1 && t[2 * i + 1] === h2) return true;
    }
  }

  private remember(buf: Uint8Array, s: number, e: number): void {
    if (2 * (this.size + 1) > this.table.length / 2) this.grow();
    const [h1, h2] = this.hash(buf, s, e);
    this.insert(this.table, h1, h2);
    this.size++;
  }

  private insert(t: Int32Array, h1: number, h2: number): void {
    const mask = t.length / 2 - 1;
    let i = h1 & mask;
    while (t[2 * i] !== 0 || t[2 * i + 1] !== 0) i = (i + 1) & mask;
    t[2 * i] = h1;
    t[2 * i + 1] = h2;
  }

  private grow(): void {
    const old = this.table;
    const t = new Int32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) if (old[i] !== 0 || old[i + 1] !== 0) this.insert(t, old[i], old[i + 1]);
    this.table = t;
  }

  /** Encodes the open transaction: row_no, txid, n, debit, credit, eff_lo, eff_hi, entry_lo. */
  private close(): void {
    if (this.pos + this.keyLength + 160 > this.out.length) {
      this.ready.push(this.out.subarray(0, this.pos));
      this.out = Buffer.allocUnsafe(Math.max(OUT_CHUNK, this.keyLength + 160));
      this.pos = 0;
    }
    let line = `${this.firstRow}\t`;
    this.pos += this.out.write(line, this.pos, "latin1");
    if (this.keyLength < 0) this.pos += this.out.write("\\N", this.pos, "latin1");
    else {
      this.out.set(this.keyBytes.subarray(0, this.keyLength), this.pos);
      this.pos += this.keyLength;
    }
    const day = (d: number, none: number) => (d === none ? "\\N" : String(d));
    line = `\t${this.n}\t${this.debit}\t${this.credit}\t${day(this.effLo, NONE)}\t${day(this.effHi, -NONE)}\t${day(this.entryLo, NONE)}\n`;
    this.pos += this.out.write(line, this.pos, "latin1");
    this.transactions++;
  }
}

/** The aggregate's table: what `buildTransactionsFromAggregate` reads (a qualified name). */
export function aggregateTableSql(staging: string): string {
  return qualifiedTable(aggregateTable(staging));
}

/** `CREATE UNLOGGED TABLE` of the aggregate table beside `staging`. */
export function createAggregateTableSql(staging: string): string {
  return `CREATE UNLOGGED TABLE ${aggregateTableSql(staging)} (${AGGREGATE_COLUMNS}) WITH (autovacuum_enabled = false)`;
}
