import type { Tx } from "../../../events/outbox.js";
import { displayText } from "../../account-groupings/localized-text.js";
import { indexCandidates, type CandidateGroup } from "./groups.js";
import type { InferenceContext, PriorMapping } from "./infer.js";

/** The engagement's account groups (all levels, in order) and whether its grouping is the MAC tree. */
export async function engagementGroups(tx: Tx, engagementId: string): Promise<{ mac: boolean; groups: CandidateGroup[] }> {
  const grouping = await tx.engagementAccountGrouping.findUnique({ where: { engagementId }, include: { groups: { orderBy: { orderIndex: "asc" } } } });
  if (!grouping) return { mac: false, groups: [] };
  return {
    mac: grouping.mac,
    groups: grouping.groups.map((g) => ({ code: g.code, lowestLevel: g.lowestLevel, macCode: g.macCode, description: displayText(g.description), alias: g.alias })),
  };
}

/**
 * What the inference reads from the database, in three statements whatever the number of accounts:
 * the engagement's groups; the mappings a person made (or a source's MAC code gave) for the same
 * accounts in the organization's earlier engagements, the most recent engagement first; and the
 * engagement's accounts already mapped, as evidence of the chart's numbering.
 */
export async function loadInferenceContext(tx: Tx, engagementId: string, accounts: readonly string[]): Promise<InferenceContext> {
  const { mac, groups } = await engagementGroups(tx, engagementId);
  const prior = accounts.length === 0 ? [] : await tx.$queryRaw<PriorMapping[]>`
    SELECT DISTINCT ON (m.account, coalesce(m.fund_id, '')) m.account, m.fund_id AS "fundId", m.code, g.mac_code AS "macCode"
      FROM engagement current
      JOIN engagement e ON e.organization_id = current.organization_id AND e.creation_date < current.creation_date
      JOIN account_mapping m ON m.engagement_id = e.id
      JOIN engagement_account_grouping eg ON eg.engagement_id = e.id
      JOIN engagement_account_group g ON g.engagement_account_grouping_id = eg.id AND g.code = m.code
     WHERE current.id = ${engagementId}
       AND m.account = ANY (${[...accounts]}::text[])
       AND m.status IN ('VERIFIED', 'MANUAL', 'MODIFIED_MAC', 'MAC_CODE')
     ORDER BY m.account, coalesce(m.fund_id, ''), e.creation_date DESC`;
  const known = await tx.$queryRaw<Array<{ account: string; mac: string }>>`
    SELECT m.account, g.mac_code AS mac
      FROM account_mapping m
      JOIN engagement_account_grouping eg ON eg.engagement_id = m.engagement_id
      JOIN engagement_account_group g ON g.engagement_account_grouping_id = eg.id AND g.code = m.code
     WHERE m.engagement_id = ${engagementId} AND g.mac_code IS NOT NULL`;
  return { candidates: indexCandidates(groups, mac), prior, known };
}
