import { createAudit, type Actor } from "../../entity/index.js";
import type { Tx } from "../../events/outbox.js";
import { DEFAULT_RISK_RANGE } from "../catalogue/system-libraries.data.js";
import { boundColumns } from "./risk-range.rules.js";

/**
 * Copies a library's risk ranges of the given analysis types to a new library based on it, or to
 * a new engagement. Returns old id -> new id, so copied configurations can point at the copies.
 */
export async function copyLibraryRiskRanges(
  tx: Tx,
  fromLibraryId: string,
  to: { libraryId: string } | { engagementId: string },
  analysisTypeIds: readonly string[] | "all",
  actor: Actor,
): Promise<Map<string, string>> {
  const types = analysisTypeIds === "all" ? {} : { analysisTypeId: { in: [...analysisTypeIds] } };
  const ranges = await tx.riskRange.findMany({ where: { libraryId: fromLibraryId, ...types }, orderBy: { id: "asc" } });
  const idMap = new Map<string, string>();
  for (const range of ranges) {
    const audit = createAudit(actor);
    idMap.set(range.id, audit.id);
    await tx.riskRange.create({
      data: {
        ...audit,
        name: range.name,
        description: range.description,
        analysisTypeId: range.analysisTypeId,
        ...to,
        system: false,
        lowLowThreshold: range.lowLowThreshold,
        lowHighThreshold: range.lowHighThreshold,
        mediumLowThreshold: range.mediumLowThreshold,
        mediumHighThreshold: range.mediumHighThreshold,
        highLowThreshold: range.highLowThreshold,
        highHighThreshold: range.highHighThreshold,
      },
    });
  }
  return idMap;
}

/** The default risk range an analysis type gets when it is added to a library. */
export async function createDefaultRiskRange(tx: Tx, libraryId: string, analysisTypeId: string, actor: Actor): Promise<string> {
  const range = await tx.riskRange.create({
    data: { ...createAudit(actor), name: "Default", description: "Default risk range", analysisTypeId, libraryId, system: false, ...boundColumns(DEFAULT_RISK_RANGE) },
  });
  return range.id;
}
