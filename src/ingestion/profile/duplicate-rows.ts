import type { RecordView } from "../csv/tokenizer.js";
import { fieldText } from "../csv/tokenizer.js";
import { RowHashSet } from "./distinct.js";

/** New rows whose insertions are made together, at most. */
const BATCH = 256;
/** Filter size: bits per expected row, and at most this many 32-bit words (2 MiB). */
const FILTER_BITS_PER_ROW = 8;
const MAX_FILTER_WORDS = 1 << 19;

/**
 * Repeated rows: their count and the first `previews` of them with their values, exactly as
 * RowHashSet.addIsDuplicate called row by row finds them (the same calls, in row order).
 *
 * The table outgrows the caches (16 MiB for a million rows), and a lookup made between two rows'
 * profiling waits for its cache miss alone. So a small filter (two bits of a word per row key,
 * about 1 MiB for a million rows) is asked first: a row it has never seen the key of cannot be a
 * duplicate, and its insertion waits for BATCH such rows, whose home slots are then read in one
 * loop of independent loads (their misses overlap). A row the filter may have seen (a duplicate,
 * or a few percent of new rows) has the pending insertions made first, then its own lookup, while
 * its record, for the examples, is at hand.
 */
export class DuplicateRows {
  private readonly set: RowHashSet;
  private readonly h1 = new Int32Array(BATCH);
  private readonly h2 = new Int32Array(BATCH);
  private pending = 0;
  private filter = new Int32Array(1 << 12);
  private filterShift = 32 - 12;
  private filterKeys = 0;
  count = 0;
  readonly examples: [number, string[]][] = [];

  /** `previews`: how many repeated rows to keep with their values; `maxSlots`: RowHashSet's bound (tests use a small one). */
  constructor(private readonly previews: number, maxSlots?: number) {
    this.set = new RowHashSet(maxSlots);
  }

  /** A data row of `width` columns (fields past it are not part of the row's values) and its hashes. */
  add(h1: number, h2: number, record: RecordView, width: number): void {
    const p = this.pending;
    this.h1[p] = h1;
    this.h2[p] = h2;
    this.pending = p + 1;
    if (this.seen(h1, h2)) {
      this.flush(true);
      if (this.set.addIsDuplicate(h1, h2)) {
        this.count++;
        if (this.examples.length < this.previews) {
          const values: string[] = [];
          for (let f = 0; f < width; f++) values.push(f < record.count ? fieldText(record, f).trim() : "");
          this.examples.push([record.index, values]);
        }
      }
    } else if (p + 1 === BATCH) {
      this.flush();
    }
  }

  /**
   * Inserts the pending new rows (all but the last when `add` asks, which looks that one up
   * itself). None of them can be a duplicate: the filter never saw their keys.
   */
  flush(keepLast = false): void {
    const n = keepLast ? this.pending - 1 : this.pending;
    if (n > 0) {
      this.set.touch(this.h1, n);
      // (Never true, see `seen`; counted all the same.)
      for (let p = 0; p < n; p++) if (this.set.addIsDuplicate(this.h1[p], this.h2[p])) this.count++;
    }
    this.pending = 0;
  }

  /** Whether every row was remembered (see RowHashSet.complete); after `flush`. */
  get complete(): boolean {
    return this.set.complete;
  }

  reserve(rows: number): void {
    this.set.reserve(rows);
    while (this.filter.length < MAX_FILTER_WORDS && this.filter.length * 32 < rows * FILTER_BITS_PER_ROW) this.growFilter();
  }

  /**
   * Sets the row key's two bits in the filter; true when both were set already. The key is what
   * RowHashSet compares (h1 and 21 bits of h2, the zero key read as 1 as there): rows it holds
   * equal always meet their own bits.
   */
  private seen(h1: number, h2: number): boolean {
    let low = (h2 >>> 11) & 0x1fffff;
    if (h1 === 0 && low === 0) low = 1;
    let x = Math.imul(h1 ^ Math.imul(low, 0x9e3779b1), 0x85ebca6b);
    x ^= x >>> 15;
    x = Math.imul(x, 0xc2b2ae35);
    x ^= x >>> 13;
    // The word from the top bits, so that a doubled filter maps word w to 2w and 2w + 1.
    const word = x >>> this.filterShift;
    const bits = (1 << (x & 31)) | (1 << ((x >>> 5) & 31));
    const old = this.filter[word];
    if ((old & bits) === bits) return true;
    this.filter[word] = old | bits;
    if (++this.filterKeys * FILTER_BITS_PER_ROW > this.filter.length * 32 && this.filter.length < MAX_FILTER_WORDS) this.growFilter();
    return false;
  }

  /** Doubles the filter; each word's bits go to both its halves (no key it held is lost). */
  private growFilter(): void {
    const old = this.filter;
    const grown = new Int32Array(old.length * 2);
    for (let w = 0; w < old.length; w++) grown[2 * w] = grown[2 * w + 1] = old[w];
    this.filter = grown;
    this.filterShift--;
  }
}
