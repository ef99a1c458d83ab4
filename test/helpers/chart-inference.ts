// How well account mapping inference places the accounts of the common small-business packages'
// default charts of accounts (test/fixtures/charts-of-accounts/), measured through the public API:
// each chart is uploaded and ingested as a chart of accounts source into an engagement of its own
// (in an organization of its own, so no earlier engagement helps), and the mappings ingestion
// creates are compared with the fixture's expected MAC codes. Shared by the test that holds the
// floor (src/modules/account-mappings/chart-inference.test.ts) and `npm run bench mapping-inference`.
import { readFileSync } from "node:fs";
import { ANALYSIS_SOURCE_TYPE_IDS, ANALYSIS_TYPE_IDS } from "../../src/modules/catalogue/ids.js";
import type { RestClient } from "./client.js";
import { awaitJob } from "./entities.js";
import { postMultipart } from "./multipart.js";

const DIR = new URL("../fixtures/charts-of-accounts/", import.meta.url);

export interface ChartSpec {
  file: string;
  title: string;
  /** Column positions of the export: the account (number, or name where the package has no numbers), its name, its type. */
  account: number;
  description: number | null;
  type: number | null;
  /** Written before the vocabulary and never used to tune it. */
  heldOut: boolean;
}

export const CHARTS: readonly ChartSpec[] = [
  { file: "quickbooks-online-us", title: "QuickBooks Online (US)", account: 0, description: null, type: 1, heldOut: false },
  { file: "sage-50-accounts-uk", title: "Sage 50 Accounts (UK)", account: 0, description: 1, type: null, heldOut: false },
  { file: "xero-uk", title: "Xero (UK)", account: 0, description: 1, type: 2, heldOut: false },
  { file: "xero-us", title: "Xero (US)", account: 0, description: 1, type: 2, heldOut: true },
  { file: "sage-50-us", title: "Sage 50 (US)", account: 0, description: 1, type: 3, heldOut: true },
];

/** "as exported": every column the export has; "number and name": what a general ledger journal names an account by. */
export type Mode = "as exported" | "number and name";

export interface Miss {
  account: string;
  name: string;
  expected: string | null;
  inferred: string | null;
  status: string;
  rightClass: boolean;
}

export interface ChartResult {
  chart: ChartSpec;
  mode: Mode;
  accounts: number;
  rightClass: number;
  rightGroup: number;
  misses: Miss[];
}

/** RFC 4180 CSV (the fixtures are small). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++;
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") row.push(cell), (cell = "");
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(cell), rows.push(row), (row = []), (cell = "");
    } else cell += c;
  }
  if (cell || row.length) row.push(cell), rows.push(row);
  return rows.filter((r) => r.some((c) => c !== ""));
}

export function chartFile(chart: ChartSpec): string {
  return readFileSync(new URL(`${chart.file}.csv`, DIR), "utf8");
}

/** The expected MAC code of each account; null where no class is right (suspense accounts). */
export function expectedCodes(chart: ChartSpec): Map<string, string | null> {
  const rows = parseCsv(readFileSync(new URL(`${chart.file}.expected.csv`, DIR), "utf8")).slice(1);
  return new Map(rows.map(([account, mac]) => [account, mac ? mac : null]));
}

export function modesOf(chart: ChartSpec): Mode[] {
  return chart.type === null ? ["number and name"] : ["as exported", "number and name"];
}

/** Ingests the chart into a new engagement and compares the mappings ingestion made with the expected codes. */
export async function measureChart(api: RestClient, chart: ChartSpec, mode: Mode): Promise<ChartResult> {
  const call = async (method: "post" | "get", path: string, body?: unknown) => {
    const response = method === "post" ? await api.post(path, body) : await api.get(path);
    if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const organization = await call("post", "/organizations", { name: `${chart.title} (${mode})` });
  const engagement = await call("post", "/engagements", { organizationId: organization.id, name: chart.title, accountingPeriod: { fiscalStartDay: 1, fiscalStartMonth: 1, frequency: "ANNUAL" } });
  const analysis = await call("post", "/analyses", { engagementId: engagement.id, analysisTypeId: ANALYSIS_TYPE_IDS.GENERAL_LEDGER, name: "GL", analysisPeriods: [{ startDate: "2024-01-01", endDate: "2024-12-31" }] });
  const upload = await postMultipart(api.baseUrl, api.token, "/file-manager/import", [
    { name: "fileManagerFile", json: { engagementId: engagement.id, name: `${chart.file}.csv` } },
    { name: "file", filename: `${chart.file}.csv`, contentType: "text/csv", data: chartFile(chart) },
  ]);
  if (upload.status !== 200) throw new Error(`upload: ${upload.status} ${JSON.stringify(upload.body)}`);
  const mappings = [{ columnPosition: chart.account, platformField: "account" }];
  if (chart.description !== null) mappings.push({ columnPosition: chart.description, platformField: "account_description" });
  if (chart.type !== null && mode === "as exported") mappings.push({ columnPosition: chart.type, platformField: "account_type" });
  const started = await call("post", "/analysis-sources", {
    engagementId: engagement.id,
    analysisId: analysis.id,
    analysisPeriodId: analysis.analysisPeriods[0].id,
    analysisSourceTypeId: ANALYSIS_SOURCE_TYPE_IDS.CHART_OF_ACCOUNTS,
    fileManagerFileId: upload.body.id,
    proposedColumnMappings: mappings,
    targetWorkflowState: "COMPLETED",
  });
  const job = await awaitJob(api, started.id, 120_000);
  if (job.status !== "COMPLETE") throw new Error(`ingesting ${chart.file}: ${job.status} ${job.error ?? ""}`);
  const page = await call("post", `/account-mappings/query?size=2000&sort=account,asc`, { engagementId: engagement.id });
  const inferred = new Map<string, { code: string | null; status: string; accountDescription?: string }>(
    page.content.map((m: { account: string; code?: string; status: string; accountDescription?: string }) => [m.account, { code: m.code ?? null, status: m.status, accountDescription: m.accountDescription }]),
  );

  const expected = expectedCodes(chart);
  const result: ChartResult = { chart, mode, accounts: expected.size, rightClass: 0, rightGroup: 0, misses: [] };
  for (const [account, want] of expected) {
    const got = inferred.get(account);
    if (!got) throw new Error(`${chart.file}: no account mapping for ${account}`);
    const rightClass = want === null ? got.code === null : got.code !== null && got.code[0] === want[0];
    const rightGroup = want === got.code;
    if (rightClass) result.rightClass++;
    if (rightGroup) result.rightGroup++;
    else result.misses.push({ account, name: got.accountDescription ?? account, expected: want, inferred: got.code, status: got.status, rightClass });
  }
  return result;
}

export const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;
