/** Prisma's code for a write refused by a foreign key (a row still referenced, or a missing target). */
export function isForeignKeyViolation(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: string; message?: string };
  return code === "P2003" || code === "23503" || /foreign key constraint/i.test(message ?? "");
}
