import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../test/helpers/server.js";
import { subscribe } from "../../../test/helpers/ws-client.js";
import { awaitJob, clientWithPermissions } from "../../../test/helpers/entities.js";
import { allRows, ledgerAnalysis, resultTable, runAnalysis } from "../../../test/helpers/analysis-run.js";
import { background, ledgerCsv, type Tx } from "../../../test/helpers/planted-ledger.js";
import type { RestClient } from "../../../test/helpers/client.js";
import { ingest } from "../../../test/helpers/analysis-sources.js";
import { detailCsv, type DetailRow } from "../../../test/helpers/subledger-ledger.js";
import { ANALYSIS_SOURCE_TYPE_IDS, ANALYSIS_TYPE_IDS } from "../catalogue/ids.js";

/**
 * Tasks and their history through REST and GraphQL on one scored result (a small ledger, one
 * run for the whole file): creation from an entry or a transaction with the row's amounts and
 * scores, every bad input a 400 naming the field, updates and the approval rules, comments,
 * open counts, permissions, deletion, the history of each change, the taskChanged subscription,
 * bulk creation from a query as one job, and the 423 while a result is being built.
 */
let server: TestServer;
let analysis: { engagementId: string; analysisId: string; sourceId: string };
let resultId: string;
let lines: { id: string };
let txTable: { id: string };
let me: string;
let other: RestClient & { tokenId: string };
let otherId: string;

function smallLedger(): string {
  const transactions: Tx[] = background(7, { sales: 3, collections: 2, purchases: 3, payroll: 1, supplies: 2 });
  transactions.push({ date: "2023-03-18", type: "AP", user: "ap_clerk", memo: "Weekend bill", lines: [{ account: "5400", amount: 31_415, memo: "Weekend bill per CEO request" }, { account: "2000", amount: -31_415 }] });
  transactions.sort((a, b) => a.date.localeCompare(b.date)).forEach((t, i) => (t.txid = `T${String(i + 1).padStart(5, "0")}`));
  return ledgerCsv(transactions);
}

beforeAll(async () => {
  server = await startTestServer();
  analysis = await ledgerAnalysis(server, "Tasks", smallLedger());
  const run = await runAnalysis(server, analysis.analysisId);
  resultId = run.result.id;
  lines = await resultTable(server, resultId, "gl_journal_lines");
  txTable = await resultTable(server, resultId, "gl_journal_tx");
  me = (await server.api.get("/users/current")).body.id;
  other = await clientWithPermissions(server.api, ["api.tasks.read", "api.tasks.write"], "reviewer");
  otherId = (await other.get("/users/current")).body.id;
}, 180_000);
afterAll(async () => server?.close());

async function history(taskId: string) {
  const page = await server.api.post("/task-histories/query?size=100&sort=dateTime", { taskId });
  expect(page.status, JSON.stringify(page.body)).toBe(200);
  return page.body.content as Array<{ id: string; taskId: string; userId: string; userName: string; operation: string; dateTime: string; changes: Array<Record<string, any>> }>;
}

function expect400(response: { status: number; body: any }, identifier: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.status).toBe(400);
  expect(response.body.problems.map((p: { identifier: string }) => p.identifier), JSON.stringify(response.body)).toContain(identifier);
}

describe("creating a task", () => {
  it("from an entry (rowId): the row's amounts, risk scores, transaction and memo; a CREATE history entry by the acting user", async () => {
    const [entry] = await allRows(server, lines.id, { account: "5400", memo: { $isubstr: "CEO" } });
    expect(entry).toBeDefined();
    const created = await server.api.post("/tasks", { analysisResultId: resultId, engagementId: analysis.engagementId, rowId: entry.rowid, type: "ENTRY", dueDate: "2024-02-29", tags: ["weekend"], assertions: ["OCCURRENCE"], auditAreas: ["Expenses"], sample: true });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const task = created.body;
    expect(task).toMatchObject({
      analysisResultId: resultId,
      analysisId: analysis.analysisId,
      engagementId: analysis.engagementId,
      analysisTypeId: "4b8360d00000000000000000",
      type: "ENTRY",
      status: "OPEN",
      rowId: entry.rowid,
      transactionId: entry.txid,
      description: "Weekend bill per CEO request",
      dueDate: "2024-02-29",
      sample: true,
      tags: ["weekend"],
      assertions: ["OCCURRENCE"],
      auditAreas: ["Expenses"],
      comments: [],
      version: 0,
    });
    expect(task.id).toMatch(/^[0-9a-f]{24}$/);
    expect(task.amounts.debit.amount).toBe(entry.debit);
    expect(task.amounts.credit.amount).toBe(entry.credit);
    expect(task.debitValue).toBe(entry.debit);
    expect(task.riskScores.risk).toBe(entry.risk);
    expect(task.riskScores.journal_entry_weekend_post).toBe(10000);
    expect(task.taskApprovalStatus).toBeUndefined();
    const read = await server.api.get(`/tasks/${task.id}`);
    expect(read.body).toEqual(task);

    const entries = await history(task.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ taskId: task.id, userId: me, operation: "CREATE" });
    expect(entries[0].userName).toMatch(/^\(API\) /);
    expect(entries[0].changes).toContainEqual({ fieldName: "status", fieldType: "ENUM", newValue: "OPEN", newValueString: "OPEN" });
    expect(entries[0].changes).toContainEqual({ fieldName: "dueDate", fieldType: "DATE", newValue: "2024-02-29", newValueString: "2024-02-29" });
    expect(entries[0].changes).toContainEqual({ fieldName: "tags", fieldType: "STRING_LIST", newValue: ["weekend"], newValueString: "weekend" });
    const single = await server.api.get(`/task-histories/${entries[0].id}`);
    expect(single.body).toEqual(entries[0]);
  });

  it("from a transaction (transactionId); a second task for the same row is 409", async () => {
    const [tx] = await allRows(server, txTable.id, { txid: "T00003" });
    const created = await server.api.post("/tasks", { analysisResultId: resultId, transactionId: "T00003" });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ type: "TRANSACTION", rowId: tx.rowid, transactionId: "T00003", name: "Transaction T00003" });
    expect(created.body.riskScores.risk).toBe(tx.risk);
    expect(created.body.amounts.debit.amount).toBe(tx.debit);
    const again = await server.api.post("/tasks", { analysisResultId: resultId, transactionId: "T00003", type: "TRANSACTION" });
    expect(again.status, JSON.stringify(again.body)).toBe(409);
    expect(again.body.problems[0].problemType).toBe("NON_UNIQUE_VALUE");
  });

  it("answers bad input with 400 naming the field, never a 500", async () => {
    const [entry] = await allRows(server, lines.id, { txid: "T00004" });
    const base = { analysisResultId: resultId, rowId: entry.rowid };
    expect400(await server.api.post("/tasks", { rowId: entry.rowid }), "analysisResultId");
    expect400(await server.api.post("/tasks", { ...base, analysisResultId: "5cc9076887f13cb8a7a1aaaa" }), "analysisResultId");
    expect400(await server.api.post("/tasks", { analysisResultId: resultId }), "rowId");
    expect400(await server.api.post("/tasks", { ...base, rowId: 999_999 }), "rowId");
    expect400(await server.api.post("/tasks", { ...base, rowId: "abc" }), "rowId");
    expect400(await server.api.post("/tasks", { analysisResultId: resultId, transactionId: "NO-SUCH-TX" }), "transactionId");
    expect400(await server.api.post("/tasks", { ...base, type: "SOMETHING" }), "type");
    expect400(await server.api.post("/tasks", { ...base, type: "AP_ENTRY" }), "type");
    // Outstanding items: a ledger result has no end-of-period outstanding table (payables and receivables results do); TRA entries have no table at all.
    const outstanding = await server.api.post("/tasks", { ...base, type: "AP_OUTSTANDING_ENTRY" });
    expect400(outstanding, "type");
    expect(outstanding.body.problems[0].reason).toContain("ap_detail_union_open_payables");
    expect(outstanding.body.problems[0].suggestedValues).toEqual(expect.arrayContaining(["ENTRY", "TRANSACTION"]));
    expect400(await server.api.post("/tasks", { ...base, type: "AR_OUTSTANDING_ENTRY" }), "type");
    expect400(await server.api.post("/tasks", { ...base, type: "TRA_ENTRY" }), "type");
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, type: "TRA_ENTRY" }), "type");
    expect400(await server.api.post("/tasks", { ...base, status: "DONE" }), "status");
    expect400(await server.api.post("/tasks", { ...base, dueDate: "2024-02-30" }), "dueDate");
    expect400(await server.api.post("/tasks", { ...base, tags: ["ok", " "] }), "tags[1]");
    expect400(await server.api.post("/tasks", { ...base, assignedId: "5cc9076887f13cb8a7a1aaaa" }), "assignedId");
    expect400(await server.api.post("/tasks", { ...base, engagementId: "5cc9076887f13cb8a7a1aaaa" }), "engagementId");
    expect400(await server.api.post("/tasks", { ...base, colour: "red" }), "colour");
    expect400(await server.api.post("/tasks", { ...base, rowId: 2 ** 70 }), "rowId");
    expect400(await server.api.post("/tasks", { ...base, rowId: -3 }), "rowId");
    expect400(await server.api.post("/tasks", { ...base, rowId: 1.5 }), "rowId");
    expect400(await server.api.post("/tasks", { ...base, sample: "yes" }), "sample");
    expect400(await server.api.post("/tasks", { ...base, approverId: "5cc9076887f13cb8a7a1aaaa" }), "approverId");
    expect400(await server.api.post("/tasks", { ...base, taskApprovalStatus: "MAYBE" }), "taskApprovalStatus");
    // rowId and transactionId of different rows: which one was meant is unknown.
    const mismatch = await server.api.post("/tasks", { ...base, transactionId: "T00005" });
    expect400(mismatch, "transactionId");
    expect(mismatch.body.problems[0].suggestedValues).toEqual(["T00004"]);
    expect400(await server.api.post("/tasks", { ...base, description: "x".repeat(20_001) }), "description");
    expect400(await server.api.post("/tasks", { ...base, tags: Array.from({ length: 501 }, (_, i) => `t${i}`) }), "tags");
    expect400(await server.api.post("/tasks", { ...base, auditAreas: ["ok", "y".repeat(501)] }), "auditAreas[1]");
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, assertions: Array.from({ length: 501 }, (_, i) => `a${i}`) }), "assertions");
    const nul = await server.api.post("/tasks", { analysisResultId: resultId, transactionId: "T\u0000X", type: "TRANSACTION" });
    expect(nul.status, JSON.stringify(nul.body)).toBe(400);
    const nulComment = await server.api.post(`/tasks/5cc9076887f13cb8a7a1aaaa/add-comment`, { commentText: "a\u0000b" });
    expect(nulComment.status).toBeLessThan(500);
    const none = await server.api.post("/tasks/query", {});
    expect(none.body.content.filter((t: { rowId: number }) => t.rowId === entry.rowid)).toEqual([]);
  });
});

describe("working a task", () => {
  let taskId: string;

  beforeAll(async () => {
    const [entry] = await allRows(server, lines.id, { txid: "T00005" });
    const created = await server.api.post("/tasks", { analysisResultId: resultId, rowId: entry.rowid });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    taskId = created.body.id;
  });

  it("updates status, assignee, due date and tags with the version; a stale version is 409; history lists each change with previous and new values", async () => {
    const updated = await server.api.put(`/tasks/${taskId}`, { status: "NORMAL", assignedId: otherId, dueDate: "2024-03-31", tags: ["cut-off", "review"], description: "Check the invoice", version: 0 });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({ status: "NORMAL", assignedId: otherId, dueDate: "2024-03-31", tags: ["cut-off", "review"], description: "Check the invoice", version: 1 });
    const stale = await server.api.put(`/tasks/${taskId}`, { status: "COMPLETED", version: 0 });
    expect(stale.status).toBe(409);
    expect((await server.api.get(`/tasks/${taskId}`)).body.status).toBe("NORMAL");
    expect400(await server.api.put(`/tasks/${taskId}`, { status: "FINISHED", version: 1 }), "status");
    expect400(await server.api.put(`/tasks/${taskId}`, { assignedId: "5cc9076887f13cb8a7a1aaaa", version: 1 }), "assignedId");
    expect400(await server.api.put(`/tasks/${taskId}`, { status: "OPEN" }), "version");
    expect400(await server.api.put(`/tasks/${taskId}`, { description: "x".repeat(20_001), version: 1 }), "description");

    const entries = await history(taskId);
    expect(entries.map((e) => e.operation)).toEqual(["CREATE", "UPDATE"]);
    const changes = entries[1].changes;
    expect(changes).toContainEqual({ fieldName: "status", fieldType: "ENUM", previousValue: "OPEN", newValue: "NORMAL", previousValueString: "OPEN", newValueString: "NORMAL" });
    expect(changes).toContainEqual({ fieldName: "assignedId", fieldType: "USER", newValue: otherId, newValueString: otherId });
    expect(changes).toContainEqual({ fieldName: "dueDate", fieldType: "DATE", newValue: "2024-03-31", newValueString: "2024-03-31" });
    expect(changes).toContainEqual({ fieldName: "tags", fieldType: "STRING_LIST", previousValue: [], newValue: ["cut-off", "review"], previousValueString: "", newValueString: "cut-off, review" });
    expect(changes.map((c) => c.fieldName).sort()).toEqual(["assignedId", "description", "dueDate", "status", "tags"]);
    expect(entries[1].userId).toBe(me);
  });

  it("accepts a read body back as an update body (read-only keys ignored); GraphQL createTask reports bad input in extensions", async () => {
    const current = (await server.api.get(`/tasks/${taskId}`)).body;
    const back = await server.api.put(`/tasks/${taskId}`, { ...current, auditAreas: ["Revenue"] });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body).toMatchObject({ auditAreas: ["Revenue"], version: current.version + 1, amounts: current.amounts, rowId: current.rowId });
    const entries = await history(taskId);
    expect(entries.at(-1)!.changes.map((c) => c.fieldName)).toEqual(["auditAreas"]);
    const bad = await server.gql(`mutation($i: CreateTaskInput!) { createTask(input: $i) { id } }`, { i: { analysisResultId: resultId, rowId: 999_999 } });
    expect(bad.body.errors[0].extensions).toMatchObject({ status: 400, problems: [{ identifier: "rowId" }] });
  });

  it("approval: an approver opens a PENDING approval; only the approver approves or rejects; a new approver opens a new approval", async () => {
    let current = (await server.api.get(`/tasks/${taskId}`)).body;
    const early = await server.api.put(`/tasks/${taskId}`, { taskApprovalStatus: "APPROVED", version: current.version });
    expect(early.status, JSON.stringify(early.body)).toBe(403);
    expect(early.body.problems[0].identifier).toBe("taskApprovalStatus");

    const assigned = await server.api.put(`/tasks/${taskId}`, { approverId: me, version: current.version });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    expect(assigned.body).toMatchObject({ approverId: me, taskApprovalStatus: "PENDING" });
    const firstApproval = assigned.body.approvalId;
    expect(firstApproval).toMatch(/^[0-9a-f]{24}$/);

    const byAssignee = await other.put(`/tasks/${taskId}`, { taskApprovalStatus: "APPROVED", version: assigned.body.version });
    expect(byAssignee.status, JSON.stringify(byAssignee.body)).toBe(403);
    expect(byAssignee.body.problems[0]).toMatchObject({ identifier: "taskApprovalStatus", problemType: "INSUFFICIENT_PERMISSION" });

    const approved = await server.api.put(`/tasks/${taskId}`, { taskApprovalStatus: "APPROVED", version: assigned.body.version });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ taskApprovalStatus: "APPROVED", approvalId: firstApproval });

    const handedOver = await server.api.put(`/tasks/${taskId}`, { approverId: otherId, version: approved.body.version });
    expect(handedOver.body).toMatchObject({ approverId: otherId, taskApprovalStatus: "PENDING" });
    expect(handedOver.body.approvalId).not.toBe(firstApproval);
    const rejected = await other.put(`/tasks/${taskId}`, { taskApprovalStatus: "REJECTED", version: handedOver.body.version });
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(200);
    expect(rejected.body.taskApprovalStatus).toBe("REJECTED");

    const entries = await history(taskId);
    const approvals = entries.flatMap((e) => e.changes.filter((c) => c.fieldName === "taskApprovalStatus").map((c) => ({ user: e.userId, from: c.previousValue, to: c.newValue })));
    expect(approvals).toEqual([
      { user: me, from: undefined, to: "PENDING" },
      { user: me, from: "PENDING", to: "APPROVED" },
      { user: me, from: "APPROVED", to: "PENDING" },
      { user: otherId, from: "PENDING", to: "REJECTED" },
    ]);
    current = (await server.api.get(`/tasks/${taskId}`)).body;
    expect(current.version).toBe(6);
  });

  it("comments: add-comment appends {authorId, captured, commentText}; a blank comment is 400; each comment is in the history", async () => {
    const added = await other.post(`/tasks/${taskId}/add-comment`, { commentText: "Invoice found, amount agrees" });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.comments).toHaveLength(1);
    expect(added.body.comments[0]).toMatchObject({ authorId: otherId, commentText: "Invoice found, amount agrees" });
    expect(added.body.comments[0].captured).toMatch(/Z$/);
    const second = await server.api.post(`/tasks/${taskId}/add-comment`, { commentText: "Thanks" });
    expect(second.body.comments.map((c: { commentText: string }) => c.commentText)).toEqual(["Invoice found, amount agrees", "Thanks"]);
    expect400(await server.api.post(`/tasks/${taskId}/add-comment`, { commentText: "  " }), "commentText");
    expect400(await server.api.post(`/tasks/${taskId}/add-comment`, {}), "commentText");
    expect((await server.api.post(`/tasks/5cc9076887f13cb8a7a1aaaa/add-comment`, { commentText: "x" })).status).toBe(404);
    const entries = await history(taskId);
    const comments = entries.filter((e) => e.operation === "COMMENT");
    expect(comments.map((e) => [e.userId, e.changes[0].newValue.commentText])).toEqual([
      [otherId, "Invoice found, amount agrees"],
      [me, "Thanks"],
    ]);
  });

  it("GraphQL: AnalysisResult.tasks and taskCounts (dismissed and resolved tasks leave the open count), Task.history and Task.comments", async () => {
    const query = `query($id: ID!, $open: JSON) { analysisResult(id: $id) { taskCounts { total open byStatus } tasks(filter: $open) { id status } } }`;
    const open = { status: { $in: ["OPEN", "NORMAL"] } };
    const before = await server.gql(query, { id: resultId, open });
    expect(before.body.errors).toBeUndefined();
    const counts = before.body.data.analysisResult.taskCounts;
    expect(counts.open).toBe(before.body.data.analysisResult.tasks.length);
    const current = (await server.api.get(`/tasks/${taskId}`)).body;
    const dismissed = await server.gql(`mutation($id: ID!, $v: Int!) { updateTask(id: $id, input: { status: DISMISSED, version: $v }) { status version } }`, { id: taskId, v: current.version });
    expect(dismissed.body.errors).toBeUndefined();
    const after = await server.gql(query, { id: resultId, open });
    expect(after.body.data.analysisResult.taskCounts).toMatchObject({ total: counts.total, open: counts.open - 1 });
    expect(after.body.data.analysisResult.taskCounts.byStatus.DISMISSED).toBe(1);

    const task = await server.gql(`query($id: ID!) { task(id: $id) { status comments { authorId commentText captured } history { operation userId changes { fieldName previousValueString newValueString } } } }`, { id: taskId });
    expect(task.body.errors).toBeUndefined();
    expect(task.body.data.task.comments.map((c: { commentText: string }) => c.commentText)).toEqual(["Invoice found, amount agrees", "Thanks"]);
    const ops = task.body.data.task.history.map((h: { operation: string }) => h.operation);
    expect(ops[0]).toBe("CREATE");
    expect(ops.at(-1)).toBe("UPDATE");
    expect(task.body.data.task.history.at(-1).changes).toEqual([{ fieldName: "status", previousValueString: "NORMAL", newValueString: "DISMISSED" }]);
  });

  it("taskChanged pushes task changes to a review dashboard, narrowed to a result", async () => {
    const events = subscribe<{ taskChanged: { type: string; taskId: string; status: string; userId: string; task: { status: string } | null } }>(
      server.url,
      server.token,
      `subscription($r: ID!) { taskChanged(analysisResultId: $r) { type taskId status userId task { status } } }`,
      { r: resultId },
    );
    await events.ready;
    const current = (await server.api.get(`/tasks/${taskId}`)).body;
    await server.api.put(`/tasks/${taskId}`, { status: "RESOLVED", version: current.version });
    const event = await events.next((e) => e.taskChanged.taskId === taskId && e.taskChanged.status === "RESOLVED");
    expect(event.taskChanged).toMatchObject({ type: "task.updated", userId: me, task: { status: "RESOLVED" } });
    await events.close();
  });
});

describe("permissions and deletion", () => {
  it("reading needs api.tasks.read, writing api.tasks.write, deleting api.tasks.delete; a deleted task's history stays readable", async () => {
    const [entry] = await allRows(server, lines.id, { txid: "T00006" });
    const reader = await clientWithPermissions(server.api, ["api.tasks.read"], "task-reader");
    const nobody = await clientWithPermissions(server.api, ["api.analyses.read"], "no-tasks");
    expect((await reader.post("/tasks", { analysisResultId: resultId, rowId: entry.rowid })).status).toBe(403);
    expect((await nobody.post("/tasks/query", {})).status).toBe(403);
    expect((await nobody.post("/task-histories/query", {})).status).toBe(403);
    const created = await server.api.post("/tasks", { analysisResultId: resultId, rowId: entry.rowid });
    expect(created.status).toBe(200);
    const id = created.body.id;
    expect((await reader.get(`/tasks/${id}`)).status).toBe(200);
    expect((await reader.put(`/tasks/${id}`, { status: "COMPLETED", version: 0 })).status).toBe(403);
    expect((await other.delete(`/tasks/${id}`)).status).toBe(403);
    const graph = await server.gql(`query($id: ID!) { analysisResult(id: $id) { id tasks { id } } }`, { id: resultId }, nobody.token);
    expect(graph.body.errors?.[0]?.extensions?.code ?? graph.body.errors?.[0]?.message).toBeDefined();

    const deleted = await server.api.delete(`/tasks/${id}`);
    expect(deleted.status).toBe(204);
    expect((await server.api.get(`/tasks/${id}`)).status).toBe(404);
    expect((await server.api.delete(`/tasks/${id}`)).status).toBe(404);
    const entries = await history(id);
    expect(entries.map((e) => e.operation)).toEqual(["CREATE", "DELETE"]);
  });
});

describe("bulk creation from a query", () => {
  it("one job makes a task of every row the query selects, skipping rows with a task, up to the limit", async () => {
    const weekend = { cp_failed: { $flags: { journal_entry_weekend_post: true } } };
    const matching = await allRows(server, lines.id, weekend);
    expect(matching.length).toBeGreaterThanOrEqual(2);
    const existing = await server.api.post("/tasks/query?size=100", { analysisResultId: resultId, type: "ENTRY" });
    const taken = new Set(existing.body.content.map((t: { rowId: number }) => t.rowId));
    const started = await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, type: "ENTRY", query: weekend, tags: ["weekend-sweep"], assignedId: otherId, dueDate: "2024-04-30" });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ type: "DATA_TRANSFORMATION_JOB", entityType: "ANALYSIS_RESULT", entityId: resultId, status: "IN_PROGRESS" });
    expect((await awaitJob(server.api, started.body.id, 30_000)).status).toBe("COMPLETE");
    const made = await server.api.post("/tasks/query?size=100", { analysisResultId: resultId, tags: { $contains: "weekend-sweep" } });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    expect(made.body.content.map((t: { rowId: number }) => t.rowId).sort()).toEqual(matching.map((r) => r.rowid).filter((r) => !taken.has(r)).sort());
    for (const task of made.body.content) {
      expect(task).toMatchObject({ type: "ENTRY", status: "OPEN", assignedId: otherId, dueDate: "2024-04-30", filterStatement: JSON.stringify(weekend) });
      expect(task.riskScores.journal_entry_weekend_post).toBe(10000);
      expect((await history(task.id)).map((e) => e.operation)).toEqual(["CREATE"]);
    }

    const limited = await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, type: "TRANSACTION", query: { risk: { $gte: 0 } }, limit: 3, tags: ["top-three"] });
    expect((await awaitJob(server.api, limited.body.id, 30_000)).status).toBe("COMPLETE");
    const top = await server.api.post("/tasks/query?size=100", { analysisResultId: resultId, tags: { $contains: "top-three" } });
    expect(top.body.totalElements).toBe(3);
    const risks = (await allRows(server, txTable.id, {})).map((r) => r.risk as number).sort((a, b) => b - a);
    expect(top.body.content.map((t: { riskScores: { risk: number } }) => t.riskScores.risk).sort((a: number, b: number) => b - a)).toEqual(risks.slice(0, 3));
  });

  it("checks the request at once: 400 naming the key for a bad query, type or limit", async () => {
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, query: { no_such_column: 1 } }), "no_such_column");
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, limit: 0 }), "limit");
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, limit: 100_001 }), "limit");
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, type: "AR_ENTRY" }), "type");
    expect400(await server.api.post("/tasks/create-from-filter", { query: {} }), "analysisResultId");
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, limit: 1.5 }), "limit");
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, query: "risk > 5" }), "query");
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, query: [{ risk: 1 }] }), "query");
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, query: { risk: { $gte: "high" } } }), "risk.$gte");
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, query: { $population: "nope" } }), "$population");
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, savedFilterId: "" }), "savedFilterId");
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, dueDate: "2024-13-01" }), "dueDate");
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, assignedId: "5cc9076887f13cb8a7a1aaaa" }), "assignedId");
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, tags: [null] }), "tags[0]");
  });
});

describe("bulk creation from a saved filter", () => {
  const group = (...conditions: unknown[]) => ({ type: "GROUP", operator: "AND", conditions });
  const bigDebit = group({ type: "MONEY", field: "debit", monetaryValueType: "MORE_THAN", value: 50_000 });

  async function savedFilter(condition: unknown, extra: Record<string, unknown> = {}, client: RestClient = server.api) {
    const created = await client.post("/saved-filters", { name: { en: "Sweep" }, filterType: "ENGAGEMENT", dataType: "ENTRIES", engagementId: analysis.engagementId, condition, ...extra });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return created.body.id as string;
  }

  async function entryTasksTaken() {
    const existing = await server.api.post("/tasks/query?size=1000", { analysisResultId: resultId, type: "ENTRY" });
    return new Set<number>(existing.body.content.map((t: { rowId: number }) => t.rowId));
  }

  /** The rows the job takes: highest risk first (rowid breaking ties), the first `limit`, less those with a task. */
  function expectedRows(rows: Array<Record<string, any>>, limit: number, taken: Set<number>) {
    const ordered = [...rows].sort((a, b) => b.risk - a.risk || a.rowid - b.rowid);
    return ordered.slice(0, limit).map((r) => r.rowid as number).filter((r) => !taken.has(r)).sort((a, b) => a - b);
  }

  async function madeWithTag(tag: string) {
    const made = await server.api.post("/tasks/query?size=1000", { analysisResultId: resultId, tags: { $contains: tag } });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    return made.body.content as Array<Record<string, any>>;
  }

  it("REST: savedFilterId alone makes tasks for exactly the entries the filter selects, highest risk first, up to the limit", async () => {
    const filterId = await savedFilter(bigDebit);
    const matching = await allRows(server, lines.id, { debit: { $gt: 50_000 } });
    expect(matching.length).toBeGreaterThanOrEqual(4);
    const taken = await entryTasksTaken();
    const started = await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, type: "ENTRY", savedFilterId: filterId, limit: 3, tags: ["filter-sweep"] });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ type: "DATA_TRANSFORMATION_JOB", entityType: "ANALYSIS_RESULT", entityId: resultId });
    expect((await awaitJob(server.api, started.body.id, 30_000)).status).toBe("COMPLETE");
    const made = await madeWithTag("filter-sweep");
    const expected = expectedRows(matching, 3, taken);
    expect(expected.length).toBeGreaterThan(0);
    expect(made.map((t) => t.rowId).sort((a, b) => a - b)).toEqual(expected);
    for (const task of made) {
      const row = matching.find((r) => r.rowid === task.rowId)!;
      expect(task).toMatchObject({ type: "ENTRY", transactionId: row.txid, debitValue: row.debit });
      expect(task.riskScores.risk).toBe(row.risk);
      expect(JSON.parse(task.filterStatement)).toEqual({ $and: [{ debit: { $gt: 50_000 } }] });
    }

    // Without a limit: every selected entry that has no task yet; those with one are skipped.
    const takenNow = await entryTasksTaken();
    const all = await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, savedFilterId: filterId, tags: ["filter-sweep-all"] });
    expect((await awaitJob(server.api, all.body.id, 30_000)).status).toBe("COMPLETE");
    expect((await madeWithTag("filter-sweep-all")).map((t) => t.rowId).sort((a, b) => a - b)).toEqual(expectedRows(matching, 1000, takenNow));
  });

  it("GraphQL: a saved filter and a query together select the entries both select (AND)", async () => {
    const filterId = await savedFilter(group({ type: "DATE", field: "effective_date", dateType: "AFTER", value: "2023-03-15" }));
    const query = { debit: { $gt: 0, $lte: 50_000 } };
    const matching = await allRows(server, lines.id, { debit: { $gt: 0, $lte: 50_000 }, effective_date: { $gt: "2023-03-15" } });
    const onlyQuery = await allRows(server, lines.id, query);
    expect(matching.length).toBeGreaterThanOrEqual(2);
    expect(onlyQuery.length).toBeGreaterThan(matching.length);
    const taken = await entryTasksTaken();
    const started = await server.gql(`mutation($input: CreateTasksFromFilterInput!) { createTasksFromFilter(input: $input) { id type entityId } }`, {
      input: { analysisResultId: resultId, type: "ENTRY", query, savedFilterId: filterId, limit: 2, tags: ["gql-filter-sweep"] },
    });
    expect(started.body.errors).toBeUndefined();
    expect(started.body.data.createTasksFromFilter).toMatchObject({ type: "DATA_TRANSFORMATION_JOB", entityId: resultId });
    expect((await awaitJob(server.api, started.body.data.createTasksFromFilter.id, 30_000)).status).toBe("COMPLETE");
    const made = await madeWithTag("gql-filter-sweep");
    expect(made.map((t) => t.rowId).sort((a, b) => a - b)).toEqual(expectedRows(matching, 2, taken));
    expect(made.length).toBeGreaterThan(0);

    const bad = await server.gql(`mutation($input: CreateTasksFromFilterInput!) { createTasksFromFilter(input: $input) { id } }`, { input: { analysisResultId: resultId, savedFilterId: "5cc9076887f13cb8a7a1aaaa" } });
    expect(bad.body.errors[0].extensions).toMatchObject({ status: 400, problems: [{ identifier: "savedFilterId" }] });
  });

  it("a filter with a POPULATIONS condition selects the population's entries", async () => {
    const population = await server.api.post("/populations", { name: "Big debits", analysisId: analysis.analysisId, condition: { type: "MONEY", field: "debit", monetaryValueType: "MORE_THAN", value: 20_000 } });
    expect(population.status, JSON.stringify(population.body)).toBe(200);
    const filterId = await savedFilter(group({ type: "POPULATIONS", field: "population", populationIds: [population.body.id] }));
    const matching = await allRows(server, lines.id, { debit: { $gt: 20_000 } });
    const taken = await entryTasksTaken();
    const started = await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, savedFilterId: filterId, query: { $not_population: population.body.id, debit: { $gt: 0 } }, tags: ["none-sweep"] });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect((await awaitJob(server.api, started.body.id, 30_000)).status).toBe("COMPLETE");
    expect(await madeWithTag("none-sweep")).toEqual([]);
    const members = await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, savedFilterId: filterId, limit: 2, tags: ["population-sweep"] });
    expect((await awaitJob(server.api, members.body.id, 30_000)).status).toBe("COMPLETE");
    expect((await madeWithTag("population-sweep")).map((t) => t.rowId).sort((a, b) => a - b)).toEqual(expectedRows(matching, 2, taken));
  });

  it("refuses a filter the token cannot use or that does not fit the table: 400 naming savedFilterId or the condition, 403 without api.filters.read", async () => {
    const body = { analysisResultId: resultId, type: "ENTRY" };
    expect400(await server.api.post("/tasks/create-from-filter", { ...body, savedFilterId: "5cc9076887f13cb8a7a1aaaa" }), "savedFilterId");
    expect400(await server.api.post("/tasks/create-from-filter", { ...body, savedFilterId: "not-an-id" }), "savedFilterId");
    expect400(await server.api.post("/tasks/create-from-filter", { ...body, savedFilterId: 12 }), "savedFilterId");

    const withFilters = await clientWithPermissions(server.api, ["api.tasks.read", "api.tasks.write", "api.filters.read", "api.filters.write"], "filter owner");
    const privateId = await savedFilter(bigDebit, { filterType: "PRIVATE", engagementId: undefined }, withFilters);
    expect400(await server.api.post("/tasks/create-from-filter", { ...body, savedFilterId: privateId }), "savedFilterId");
    const own = await withFilters.post("/tasks/create-from-filter", { ...body, savedFilterId: privateId, limit: 1, tags: ["private-sweep"] });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect((await awaitJob(server.api, own.body.id, 30_000)).status).toBe("COMPLETE");

    const shared = await savedFilter(bigDebit);
    const noFilters = await clientWithPermissions(server.api, ["api.tasks.read", "api.tasks.write"], "no filter reader");
    const forbidden = await noFilters.post("/tasks/create-from-filter", { ...body, savedFilterId: shared });
    expect(forbidden.status, JSON.stringify(forbidden.body)).toBe(403);
    expect(forbidden.body.problems[0]).toMatchObject({ identifier: "savedFilterId", problemType: "INSUFFICIENT_PERMISSION" });

    const unfit = await savedFilter(group({ type: "STRING", field: "riskGroup", values: ["ASSETS"] }));
    expect400(await server.api.post("/tasks/create-from-filter", { analysisResultId: resultId, type: "TRANSACTION", savedFilterId: unfit }), "condition.conditions[0].field");
    expect400(await server.api.post("/tasks/create-from-filter", { ...body, savedFilterId: shared, query: { nope: 1 } }), "nope");
  });
});

describe("tasks of a payables result", () => {
  let apResultId: string;
  let apTable: { id: string };
  const rows: DetailRow[] = [
    { invoiceId: "INV-100", party: "V01", partyName: "Acme Supplies", type: "Invoice", invoiceDate: "2023-03-01", date: "2023-03-02", amount: 120_050, memo: "Office chairs" },
    { invoiceId: "INV-101", party: "V01", partyName: "Acme Supplies", type: "Invoice", invoiceDate: "2023-04-03", date: "2023-04-03", amount: 98_765, memo: "Desks" },
    { invoiceId: "INV-100", party: "V01", partyName: "Acme Supplies", type: "Payment", invoiceDate: "2023-03-01", date: "2023-05-02", amount: -120_050, memo: "Wire" },
    { invoiceId: "B-7", party: "V02", partyName: "Bolt & Co", type: "Invoice", invoiceDate: "2023-06-10", date: "2023-06-12", amount: 4_500_000, memo: "Forklift" },
    { invoiceId: "B-8", party: "V02", partyName: "Bolt & Co", type: "Invoice", invoiceDate: "2023-07-10", date: "2023-07-10", amount: 31_415, memo: "" },
  ];

  beforeAll(async () => {
    const organization = await server.api.post("/organizations", { name: "Payables tasks org" });
    const engagement = await server.api.post("/engagements", { organizationId: organization.body.id, name: "Payables tasks", accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
    expect(engagement.status, JSON.stringify(engagement.body)).toBe(200);
    const created = await server.api.post("/analyses", { engagementId: engagement.body.id, analysisTypeId: ANALYSIS_TYPE_IDS.ACCOUNTS_PAYABLE_V2, name: "Payables", analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }] });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const fixture = { engagementId: engagement.body.id, analysisId: created.body.id, periodId: created.body.analysisPeriods[0].id };
    const detail = await ingest(server, fixture, detailCsv("AP", rows), { targetWorkflowState: "COMPLETED", analysisSourceTypeId: ANALYSIS_SOURCE_TYPE_IDS.ACCOUNTS_PAYABLE_DETAIL });
    expect(detail.source.workflowState, JSON.stringify(detail.source.errors)).toBe("COMPLETED");
    const run = await runAnalysis(server, fixture.analysisId, "COMPLETE", 120_000);
    apResultId = run.result.id;
    apTable = await resultTable(server, apResultId, "ap_detail_entries");
  }, 180_000);

  it("an AP_ENTRY task (the default type) carries the entry's vendor, invoice, type, amount, memo and scores", async () => {
    const [forklift] = await allRows(server, apTable.id, { invoice_id: "B-7" });
    expect(forklift).toBeDefined();
    const created = await server.api.post("/tasks", { analysisResultId: apResultId, rowId: forklift.rowid });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({
      type: "AP_ENTRY",
      rowId: forklift.rowid,
      name: "Payables entry " + forklift.rowid + " (invoice B-7)",
      vendorName: "Bolt & Co",
      invoiceRef: "B-7",
      entryType: "Invoice",
      description: "Forklift",
    });
    // The row has no currency column: the analysis's currency applies.
    const currency = forklift.currency ?? (await server.api.get(`/analyses/${created.body.analysisId}`)).body.currencyCode;
    expect(currency).toMatch(/^[A-Z]{3}$/);
    expect(created.body.amounts).toEqual({ amount: { amount: 4_500_000, currency } });
    expect(created.body.riskScores.risk).toBe(forklift.risk);
    for (const [key, score] of Object.entries(forklift).filter(([k, v]) => k.startsWith("cp_score_") && (v as number) > 0)) expect(created.body.riskScores[key.slice("cp_score_".length)]).toBe(score);
    expect(created.body.customerName).toBeUndefined();
    expect400(await server.api.post("/tasks", { analysisResultId: apResultId, rowId: forklift.rowid, type: "ENTRY" }), "type");
    expect400(await server.api.post("/tasks", { analysisResultId: apResultId, rowId: forklift.rowid, type: "AR_OUTSTANDING_ENTRY" }), "type");
  });

  it("bulk creation on the payables table: every payment, by query", async () => {
    const payments = await allRows(server, apTable.id, { amount: { $lt: 0 } });
    expect(payments).toHaveLength(1);
    const started = await server.api.post("/tasks/create-from-filter", { analysisResultId: apResultId, query: { amount: { $lt: 0 } }, tags: ["payments"] });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect((await awaitJob(server.api, started.body.id, 30_000)).status).toBe("COMPLETE");
    const made = await server.api.post("/tasks/query", { analysisResultId: apResultId, tags: { $contains: "payments" } });
    expect(made.body.content.map((t: Record<string, unknown>) => [t.type, t.rowId, t.invoiceRef, t.vendorName, (t.amounts as any).amount.amount])).toEqual([["AP_ENTRY", payments[0].rowid, "INV-100", "Acme Supplies", -120_050]]);
  });
});

describe("a result still being built", () => {
  it("answers POST /tasks with 423 (status 423 in the body) until the run completes; the retry succeeds", async () => {
    const started = await server.api.post(`/analyses/${analysis.analysisId}/run`, {});
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const building = started.body.entityId;
    const locked = await server.api.post("/tasks", { analysisResultId: building, rowId: 1 });
    const bulkLocked = await server.api.post("/tasks/create-from-filter", { analysisResultId: building });
    const job = await awaitJob(server.api, started.body.id, 60_000);
    expect(job.status).toBe("COMPLETE");
    expect(locked.status, JSON.stringify(locked.body)).toBe(423);
    expect(locked.body).toMatchObject({ status: 423 });
    expect(locked.body.problems[0].problemType).toBe("INVALID_STATE");
    expect(bulkLocked.status).toBe(423);
    const retried = await server.api.post("/tasks", { analysisResultId: building, rowId: 1 });
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.analysisResultId).toBe(building);
  });
});
