import type { Tx } from "../../events/outbox.js";

/**
 * Ids of libraries whose accountGroupingId is this grouping. Libraries are another module's table
 * (library.account_grouping_id); until it exists in the database the answer is "none", so this
 * works before and after that module is merged.
 */
export async function librariesUsingGrouping(tx: Tx, accountGroupingId: string): Promise<string[]> {
  const [present] = await tx.$queryRawUnsafe<Array<{ present: boolean }>>(
    `SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'library' AND column_name = 'account_grouping_id') AS present`,
  );
  if (!present?.present) return [];
  const rows = await tx.$queryRawUnsafe<Array<{ id: string }>>("SELECT id FROM library WHERE account_grouping_id = $1 ORDER BY id LIMIT 20", accountGroupingId);
  return rows.map((r) => r.id);
}

/** The grouping a library uses, when libraries exist; engagements copy it at creation. */
export async function libraryGroupingId(tx: Tx, libraryId: string): Promise<string | null> {
  const [present] = await tx.$queryRawUnsafe<Array<{ present: boolean }>>(
    `SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'library' AND column_name = 'account_grouping_id') AS present`,
  );
  if (!present?.present) return null;
  const rows = await tx.$queryRawUnsafe<Array<{ account_grouping_id: string | null }>>("SELECT account_grouping_id FROM library WHERE id = $1", libraryId);
  return rows[0]?.account_grouping_id ?? null;
}
