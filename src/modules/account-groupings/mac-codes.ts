import type pg from "pg";
import { ValidationError } from "../../core/errors.js";

/** Well-known id of the system account-classification (MAC) grouping; system libraries use it. */
export const SYSTEM_ACCOUNT_GROUPING_ID = "5cc9076887f13cb8a7a19300";

type Queryable = Pick<pg.Pool, "query"> | { $queryRawUnsafe<T>(sql: string, ...values: unknown[]): Promise<T> };

/** Every MAC code with its level (1 = statement class ... 4 = the codes lowest-level groups map to). */
export async function loadMacLevels(db: Queryable): Promise<Map<string, number>> {
  const sql = "SELECT code, coalesce(array_length(hierarchy, 1), 1) AS level FROM account_group WHERE account_grouping_id = $1";
  const rows: Array<{ code: string; level: number }> =
    "query" in db ? (await db.query(sql, [SYSTEM_ACCOUNT_GROUPING_ID])).rows : await db.$queryRawUnsafe(sql, SYSTEM_ACCOUNT_GROUPING_ID);
  return new Map(rows.map((r) => [r.code, Number(r.level)]));
}

/** 400 unless `macCode` is null (cleared) or one of the platform's MAC codes. */
export function assertMacCode(macCode: string | null | undefined, macLevels: ReadonlyMap<string, number>, identifier = "macCode"): void {
  if (macCode == null) return;
  if (!macLevels.has(macCode)) {
    throw new ValidationError(`macCode ${macCode} is not an account-classification (MAC) code; see the groups of account grouping ${SYSTEM_ACCOUNT_GROUPING_ID}`, {
      identifier,
      values: [macCode],
    });
  }
}
