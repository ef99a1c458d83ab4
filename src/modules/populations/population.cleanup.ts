import { touchAudit, type Actor } from "../../entity/index.js";
import type { Emit, Tx } from "../../events/outbox.js";

/**
 * A deleted analysis leaves no trace in the engagement populations that were disabled for it
 * (`disabledForAnalysisIds`), in the transaction of the delete; each population changed is a new
 * version with a `population.updated` event. (`promotedFromAnalysisId` is cleared by its foreign
 * key, ON DELETE SET NULL.)
 */
export async function forgetAnalysisInPopulations(tx: Tx, emit: Emit, actor: Actor, analysisId: string): Promise<number> {
  const audit = touchAudit(actor);
  const changed = await tx.$queryRaw<Array<{ id: string; engagement_id: string | null }>>`
    UPDATE population p
       SET disabled_for_analysis_ids = array_remove(p.disabled_for_analysis_ids, ${analysisId}),
           version = p.version + 1,
           last_modified_date = ${audit.lastModifiedDate},
           last_modified_user_id = ${audit.lastModifiedUserId},
           last_modified_user_name = ${audit.lastModifiedUserName}
     WHERE ${analysisId} = ANY (p.disabled_for_analysis_ids)
 RETURNING p.id, p.engagement_id`;
  for (const p of changed) {
    emit({ type: "population.updated", entityType: "POPULATION", entityId: p.id, userId: actor.userId, payload: { populationId: p.id, engagementId: p.engagement_id, analysisId: null } });
  }
  return changed.length;
}
