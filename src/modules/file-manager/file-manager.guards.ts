import type { Tx } from "../../events/outbox.js";

/**
 * Reasons a file may not be deleted right now, contributed by other modules. The analysis sources
 * module registers one saying which files a running analysis source uses; the guard returns a
 * message per blocked file id (an empty map when nothing is in use).
 */
export type FileDeleteGuard = (tx: Tx, fileIds: string[]) => Promise<Map<string, string>>;

const guards: FileDeleteGuard[] = [];

export function registerFileDeleteGuard(guard: FileDeleteGuard): void {
  guards.push(guard);
}

export async function fileDeleteBlockers(tx: Tx, fileIds: string[]): Promise<Map<string, string>> {
  const blocked = new Map<string, string>();
  if (fileIds.length === 0) return blocked;
  for (const guard of guards) for (const [id, reason] of await guard(tx, fileIds)) if (!blocked.has(id)) blocked.set(id, reason);
  return blocked;
}
