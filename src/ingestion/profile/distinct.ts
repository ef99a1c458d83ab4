/**
 * Distinct-value counting in bounded memory: exact up to `exactLimit` values (a Set of 31-bit
 * hashes), then HyperLogLog with 4096 registers (about 1.6% standard error, 4 KiB per column).
 */
const P = 12;
const M = 1 << P;
const ALPHA = 0.7213 / (1 + 1.079 / M);

export class DistinctCounter {
  private exact: Set<number> | null = new Set();
  private registers: Uint8Array | null = null;

  constructor(private readonly exactLimit = 10_000) {}

  /** `hash` is a well-mixed 32-bit hash of the value. */
  add(hash: number): void {
    if (this.exact) {
      this.exact.add(hash & 0x7fffffff);
      if (this.exact.size > this.exactLimit) {
        const registers = new Uint8Array(M);
        for (const h of this.exact) addToRegisters(registers, mix(h));
        this.registers = registers;
        this.exact = null;
      }
      return;
    }
    // mix and addToRegisters written out: a uint32 returned from a call is boxed (one heap number per value).
    let h = hash & 0x7fffffff;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    const registers = this.registers!;
    const index = h >>> (32 - P);
    const rest = (h << P) >>> 0;
    const rank = rest === 0 ? 32 - P + 1 : Math.clz32(rest) + 1;
    if (rank > registers[index]) registers[index] = rank;
  }

  get approximate(): boolean {
    return this.exact === null;
  }

  count(): number {
    if (this.exact) return this.exact.size;
    const registers = this.registers!;
    let sum = 0;
    let zeros = 0;
    for (let i = 0; i < M; i++) {
      sum += 2 ** -registers[i];
      if (registers[i] === 0) zeros++;
    }
    const estimate = (ALPHA * M * M) / sum;
    if (estimate <= 2.5 * M && zeros > 0) return Math.round(M * Math.log(M / zeros));
    return Math.round(estimate);
  }
}

function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function addToRegisters(registers: Uint8Array, h: number): void {
  const index = h >>> (32 - P);
  const rest = (h << P) >>> 0;
  const rank = rest === 0 ? 32 - P + 1 : Math.clz32(rest) + 1;
  if (rank > registers[index]) registers[index] = rank;
}

/**
 * Remembers 53-bit row hashes to find repeated rows, in an open-addressing table that grows up to
 * `maxSlots` (8 bytes each). When full it stops remembering new rows and only looks up, so memory
 * stays bounded; `complete` then says the count covers the remembered rows only.
 */
export class RowHashSet {
  private table = new Float64Array(1 << 18);
  private size = 0;
  complete = true;

  constructor(private readonly maxSlots = 1 << 22) {}

  /** Adds the row hash (two 32-bit halves); true when it was already there. */
  addIsDuplicate(h1: number, h2: number): boolean {
    const k = ((h1 >>> 0) * 2097152 + ((h2 >>> 11) & 0x1fffff)) || 1;
    const mask = this.table.length - 1;
    let i = h1 & mask;
    for (;;) {
      const v = this.table[i];
      if (v === 0) break;
      if (v === k) return true;
      i = (i + 1) & mask;
    }
    if (this.size * 4 >= this.table.length * 3) {
      if (this.table.length >= this.maxSlots) {
        this.complete = false;
        return false;
      }
      this.grow();
      return this.addIsDuplicate(h1, h2);
    }
    this.table[i] = k;
    this.size++;
    return false;
  }

  /** Sum of the slots `touch` read (kept so that the reads are not optimised away). */
  touched = 0;

  /**
   * Reads the home slots of `n` row hashes (the h1 halves) ahead of their lookups: independent
   * loads, so the CPU has their cache misses in flight together.
   */
  touch(h1s: Int32Array, n: number): void {
    const table = this.table;
    const mask = table.length - 1;
    let sum = 0;
    for (let p = 0; p < n; p++) sum += table[h1s[p] & mask];
    this.touched = sum;
  }

  /**
   * Sizes the table for about `rows` rows at once (a scan's estimate from its first chunk), so
   * that it is not rehashed at every doubling on the way; never beyond `maxSlots`.
   */
  reserve(rows: number): void {
    let slots = this.table.length;
    while (slots < this.maxSlots && rows * 4 >= slots * 3) slots *= 2;
    if (slots > this.table.length) this.rehash(slots);
  }

  private grow(): void {
    // Doubling (not more): a million rows then need 16 MiB, not 32, and the server's peak
    // memory is what the files benchmark bounds.
    this.rehash(Math.min(this.maxSlots, this.table.length * 2));
  }

  private rehash(slots: number): void {
    const old = this.table;
    this.table = new Float64Array(slots);
    const mask = this.table.length - 1;
    // An indexed loop: iterating a Float64Array with for-of boxes every element.
    for (let j = 0; j < old.length; j++) {
      const v = old[j];
      if (v === 0) continue;
      // The slot index is the high half's low bits, as in addIsDuplicate.
      let i = Math.floor(v / 2097152) & mask;
      while (this.table[i] !== 0) i = (i + 1) & mask;
      this.table[i] = v;
    }
  }
}
