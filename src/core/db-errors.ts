import { ValidationError } from "./errors.js";

/** Prisma's code for a write refused by a foreign key (a row still referenced, or a missing target). */
export function isForeignKeyViolation(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: string; message?: string };
  return code === "P2003" || code === "23503" || /foreign key constraint/i.test(message ?? "");
}

/**
 * For a create whose owner was checked and then deleted before the insert committed: the foreign
 * key refuses the row, and the caller gets the 400 an unknown owner gets, naming the key.
 */
export function ownerGoneAs(identifier: string, value: string | null | undefined) {
  return (error: unknown): never => {
    if (isForeignKeyViolation(error)) throw new ValidationError(`${identifier} ${value ?? ""} refers to nothing (it was deleted meanwhile)`, { identifier, values: value ? [value] : [] });
    throw error;
  };
}
