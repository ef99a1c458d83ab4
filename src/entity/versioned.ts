import { ConflictError, NotFoundError } from "../core/errors.js";
import { touchAudit, type Actor } from "./audit.js";

interface Delegate<R> {
  update(args: { where: { id: string; version?: number }; data: Record<string, unknown> }): Promise<R>;
  count(args: { where: { id: string } }): Promise<number>;
}

function isRecordNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "P2025";
}

/**
 * The one place optimistic concurrency happens (spec 2.1 rule 4): update the row only where both
 * `id` and `version` match, incrementing `version`; otherwise 404 if the row is gone or 409 if
 * someone saved first. `expectedVersion` undefined skips the check (wire reference 9.11).
 */
export async function saveVersioned<R>(
  delegate: Delegate<R>,
  entityType: string,
  id: string,
  expectedVersion: number | undefined,
  data: Record<string, unknown>,
  actor: Actor,
): Promise<R> {
  try {
    return await delegate.update({
      where: expectedVersion === undefined ? { id } : { id, version: expectedVersion },
      data: { ...data, ...touchAudit(actor), version: { increment: 1 } },
    });
  } catch (error) {
    if (!isRecordNotFound(error)) throw error;
    if ((await delegate.count({ where: { id } })) === 0) throw new NotFoundError(entityType, id);
    throw new ConflictError(`${entityType} ${id} was changed by someone else: the version sent (${expectedVersion}) is not the latest; read it again and reapply the change`, {
      identifier: "version",
      values: [expectedVersion],
      entityId: id,
      entityType,
    });
  }
}
