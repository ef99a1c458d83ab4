import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileFilter, SqlParams, type ColumnDef, type ColumnSet } from "../src/query-language/index.js";
import { organizationColumns } from "../src/modules/organizations/organization.columns.js";
import { engagementColumns } from "../src/modules/engagements/engagement.columns.js";
import { userColumns } from "../src/modules/users/user.columns.js";
import { apiTokenColumns } from "../src/modules/api-tokens/api-token.columns.js";
import { webhookColumns, webhookEventLogColumns } from "../src/modules/webhooks/webhook.columns.js";
import { createTestDatabase } from "./helpers/database.js";

// Spec 4.2 / issue 2: filters run in the database "with indexes on queryable columns". For every
// column of the foundation entities and every indexable search its flags allow, the SQL the
// translator writes is EXPLAINed on the migrated schema with sequential scans disabled; the plan
// must apply the condition through an index (an Index Cond), not merely walk some index in full.
//
// Deliberately not covered (and not indexed): BOOLEAN flags (two values; a btree is not selective
// enough for the planner to use), `version` (a per-entity save counter), and the negated operators
// ($ne, $nin, $ncontains, $niprefix), which no btree or GIN index answers.
const FOUNDATION: Array<[table: string, columns: ColumnSet]> = [
  ["organization", organizationColumns],
  ["engagement", engagementColumns],
  ["app_user", userColumns],
  ["api_token", apiTokenColumns],
  ["webhook", webhookColumns],
  ["webhook_event_log", webhookEventLogColumns],
];

const SAMPLE: Partial<Record<ColumnDef["type"], unknown>> = {
  OBJECTID: "000000000000000000000001",
  STRING: "abc",
  DATE_TIME: "2025-01-01T00:00:00Z",
  DATE: "2025-01-01",
  INT32: 5,
  INT64: 5,
  ARRAY_STRINGS: "abc",
};

function searches(column: ColumnDef): Array<{ op: string; value: unknown }> {
  if (column.type === "BOOLEAN" || column.field === "version") return [];
  // Enumeration columns only take one of their values (compared as stored).
  const value = column.values?.[0] ?? SAMPLE[column.type];
  if (value === undefined) throw new Error(`no sample value for ${column.type} (${column.field}); extend SAMPLE`);
  const out: Array<{ op: string; value: unknown }> = [];
  if (column.equalitySearch) out.push({ op: "$eq", value }, { op: "$in", value: [value] });
  if (column.rangeSearch) out.push({ op: "$gt", value }, { op: "$lte", value });
  if (column.caseInsensitivePrefixSearch) out.push({ op: "$iprefix", value: "ab" });
  if (column.containsSearch) out.push({ op: "$contains", value });
  return out;
}

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Index Cond"?: string;
  Plans?: PlanNode[];
}

function indexConditions(node: PlanNode): string[] {
  const own = node["Index Cond"] && node["Index Name"] ? [`${node["Index Name"]}: ${node["Index Cond"]}`] : [];
  return [...own, ...(node.Plans ?? []).flatMap(indexConditions)];
}

let client: pg.Client;
beforeAll(async () => {
  const { url } = await createTestDatabase();
  client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("SET enable_seqscan = off");
});
afterAll(async () => client?.end());

describe("indexes on the queryable columns of the foundation entities", () => {
  it("serve every equality, range, prefix and contains search the column flags allow", async () => {
    const missing: string[] = [];
    let checked = 0;
    for (const [table, columns] of FOUNDATION) {
      for (const column of columns.byField.values()) {
        for (const { op, value } of searches(column)) {
          const { sql, params } = compileFilter({ [column.field]: { [op]: value } }, columns, new SqlParams());
          const { rows } = await client.query(`EXPLAIN (FORMAT JSON) SELECT id FROM ${table} WHERE ${sql}`, params.values);
          const plan = (rows[0]["QUERY PLAN"] as Array<{ Plan: PlanNode }>)[0].Plan;
          checked++;
          if (indexConditions(plan).length === 0) missing.push(`${table}.${column.sql} ${op}: ${sql}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(60);
    expect(missing).toEqual([]);
  });

  it("use the GIN index for $contains on lower-case id arrays and on arrays stored as given", async () => {
    const plan = async (table: string, where: string, values: unknown[]) =>
      indexConditions(((await client.query(`EXPLAIN (FORMAT JSON) SELECT id FROM ${table} WHERE ${where}`, values)).rows[0]["QUERY PLAN"] as Array<{ Plan: PlanNode }>)[0].Plan);
    expect((await plan("engagement", compileFilter({ auditorIds: { $contains: "000000000000000000000001" } }, engagementColumns).sql, ["000000000000000000000001"])).join()).toMatch(
      /engagement_auditor_ids_idx/,
    );
    expect((await plan("account_group", "lower_text_array(account_tags) @> ARRAY[$1::text]", ["cash"])).join()).toMatch(/account_group_account_tags_lower_idx/);
  });
});
