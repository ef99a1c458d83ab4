import { crudRoutes, route } from "../../../rest/route-helpers.js";

export const analysisResultRoutes = [
  ...crudRoutes({ resource: "analysis-results", idParam: "analysisResultId", entity: "AnalysisResult", tag: "Analyses", ops: ["read", "query"] }),
  route({
    method: "GET",
    path: "/analysis-results/{analysisResultId}/entries/{rowid}/explain",
    operation: "query",
    field: "explainEntryScore",
    args: { analysisResultId: { from: "path", name: "analysisResultId" }, rowid: { from: "path", name: "rowid" } },
    summary: "Why an entry (gl_journal_lines / ap / ar rowid) scores what it scores: control points, scores, weights and reasons",
    tag: "Analyses",
  }),
  route({
    method: "GET",
    path: "/analysis-results/{analysisResultId}/transactions/{rowid}/explain",
    operation: "query",
    field: "explainTransactionScore",
    args: { analysisResultId: { from: "path", name: "analysisResultId" }, rowid: { from: "path", name: "rowid" } },
    summary: "Why a transaction (gl_journal_tx rowid) scores what it scores",
    tag: "Analyses",
  }),
];
