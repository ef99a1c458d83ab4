import type { Tx } from "../../events/outbox.js";

/** Ids of libraries whose accountGroupingId is this grouping (at most 20, for the message). */
export async function librariesUsingGrouping(tx: Tx, accountGroupingId: string): Promise<string[]> {
  const rows = await tx.library.findMany({ where: { accountGroupingId }, select: { id: true }, orderBy: { id: "asc" }, take: 20 });
  return rows.map((r) => r.id);
}

/** The grouping a library uses; engagements copy it at creation. */
export async function libraryGroupingId(tx: Tx, libraryId: string): Promise<string | null> {
  const library = await tx.library.findUnique({ where: { id: libraryId }, select: { accountGroupingId: true } });
  return library?.accountGroupingId ?? null;
}
