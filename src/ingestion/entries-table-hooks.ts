import type { Actor } from "../entity/audit.js";
import type { Emit, Tx } from "../events/outbox.js";
import type { EntryColumn } from "./parse/parse.js";
import type { TransactionColumn } from "./transactions/transactions-table.js";

/**
 * The seam between the analysis source workflow (which parses a file into an entries table, and for
 * journals a transactions table) and the data tables module (which publishes them as queryable data
 * tables). Analysis sources call
 * these inside the transaction that records the change; data tables register the handlers. Neither
 * module imports the other, so each can be built and tested on its own.
 */
export interface EntriesTableCreated {
  analysisId: string;
  analysisSourceId: string;
  analysisSourceTypeId: string;
  engagementId: string;
  /** Schema-qualified, quoted-ready name, e.g. `ingest.entries_<sourceId>` (see ingestionTables). */
  table: string;
  columns: EntryColumn[];
  rowCount: number;
  /** The entries summarised per transaction (journal sources), built beside the entries table. */
  transactions?: { table: string; columns: TransactionColumn[]; rowCount: number } | null;
}

export interface EntriesTableDropped {
  analysisId: string;
  analysisSourceId: string;
}

type Handler<E> = (tx: Tx, emit: Emit, actor: Actor, event: E) => Promise<void>;

const created: Array<Handler<EntriesTableCreated>> = [];
const dropped: Array<Handler<EntriesTableDropped>> = [];

export function onEntriesTableCreated(handler: Handler<EntriesTableCreated>): void {
  created.push(handler);
}

export function onEntriesTableDropped(handler: Handler<EntriesTableDropped>): void {
  dropped.push(handler);
}

export async function entriesTableCreated(tx: Tx, emit: Emit, actor: Actor, event: EntriesTableCreated): Promise<void> {
  for (const handler of created) await handler(tx, emit, actor, event);
}

export async function entriesTableDropped(tx: Tx, emit: Emit, actor: Actor, event: EntriesTableDropped): Promise<void> {
  for (const handler of dropped) await handler(tx, emit, actor, event);
}
