import type { App } from "../../app-types.js";
import type { ColumnDefinition, WorkflowFeature } from "../../ingestion/index.js";

export interface SourceType {
  readonly features: readonly WorkflowFeature[];
  readonly definitions: ColumnDefinition[];
}

/**
 * Analysis source types, per database client: catalogue rows the seed writes and nothing changes
 * (no API, job or migration updates them), so each is read once per process instead of once per
 * source request, walk and progress subscription (a Prisma query each on the main thread, in
 * the chain from the source request to the effective-date step). Frozen: shared by every caller.
 */
const knownSourceTypes = new WeakMap<object, Map<string, Promise<SourceType | null>>>();

export function sourceTypeOf(app: Pick<App, "prisma">, id: string): Promise<SourceType | null> {
  let known = knownSourceTypes.get(app.prisma);
  if (!known) knownSourceTypes.set(app.prisma, (known = new Map()));
  const cached = known.get(id);
  if (cached) return cached;
  const read = app.prisma.analysisSourceType.findUnique({ where: { id } }).then((type) =>
    type ? deepFreeze({ features: type.features as WorkflowFeature[], definitions: type.columnDefinitions }) : null,
  );
  known.set(id, read);
  // Only a type read is kept: an unknown id (or a failed read) is asked again next time.
  read.then(
    (type) => type === null && known.delete(id),
    () => known.delete(id),
  );
  return read;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
