import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { analysisFixture, createSource, uploadFile, type SourceFixture } from "../helpers/analysis-sources.js";
import { journalCsv } from "../helpers/ledger.js";
import { background, ledgerCsv, plants, type Tx } from "../helpers/planted-ledger.js";
import { ledgerAnalysis, resultTable, updateConfiguration } from "../helpers/analysis-run.js";
import { chromiumAvailable, launchChromium, outputDir } from "../helpers/browser.js";

/**
 * The web console in headless Chromium: a ledger uploaded through the API appears, its progress bar
 * reaches COMPLETED over graphql-ws, the effective-date chart draws, and the data table filters;
 * an analysis run's risk-level and control-point charts show the result's summary and an entry
 * opens its score explanation; an engagement screen follows all its sources on one subscription.
 * One browser, one page, one flow: browser tests are the slowest kind.
 */
describe.runIf(chromiumAvailable())("web console (headless Chromium)", () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let fixture: SourceFixture;
  const out = outputDir("console");
  const graphqlPaths = new Set<string>();
  /** Every graphql-ws message the page sent and received, in order, as the browser saw them. */
  const sent: Array<{ socket: number; type: string; id?: string; payload?: { query: string; variables?: Record<string, unknown> } }> = [];
  const received: Array<{ socket: number; type: string; id?: string; payload?: any }> = [];
  let sockets = 0;
  /** The error messages of every GraphQL answer the page read. */
  const answers: Array<Promise<string[]>> = [];

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
    fixture = await analysisFixture(server, "Console");
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith("/api/")) graphqlPaths.add(url.pathname);
    });
    page.on("response", (response) => {
      if (new URL(response.url()).pathname === "/api/graphql" && response.request().method() === "POST")
        answers.push(response.json().then((body) => (body.errors ?? []).map((e: { message: string }) => e.message), () => []));
    });
    page.on("websocket", (socket) => {
      const n = ++sockets;
      socket.on("framesent", ({ payload }) => sent.push({ socket: n, ...JSON.parse(String(payload)) }));
      socket.on("framereceived", ({ payload }) => received.push({ socket: n, ...JSON.parse(String(payload)) }));
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("signs in with a token kept in sessionStorage only", async () => {
    await page.goto(`${server.url}/console/`);
    await page.getByLabel("API token").fill("not-a-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expectVisible(page.getByRole("alert"));
    await page.getByLabel("API token").fill(server.token);
    await page.keyboard.press("Enter");
    await expectVisible(page.getByRole("link", { name: "Console GL" }));
    const stored = await page.evaluate(() => ({ session: sessionStorage.getItem("fap.console.token"), local: Object.keys(localStorage).length, cookie: document.cookie }));
    expect(stored).toEqual({ session: server.token, local: 0, cookie: "" });
  });

  it("follows an upload to COMPLETED with a live progress bar, then charts effective dates", async () => {
    // Keyboard: focus the analysis link and open it with Enter.
    await page.getByRole("link", { name: "Console GL" }).focus();
    await page.keyboard.press("Enter");
    await expectVisible(page.getByText("No sources yet"));
    // Records every workflow state and percentage the page shows, as it shows them.
    await page.evaluate(() => {
      const w = window as unknown as { seen: string[] };
      w.seen = [];
      new MutationObserver(() => {
        const state = document.querySelector("[data-testid=workflow-state]")?.textContent;
        const percent = document.querySelector("[role=progressbar]")?.getAttribute("aria-valuenow");
        const entry = `${state} ${percent}`;
        if (state && w.seen[w.seen.length - 1] !== entry) w.seen.push(entry);
      }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    const fileId = await uploadFile(server, fixture.engagementId, "journal.csv", journalCsv(2000));
    await createSource(server, fixture, fileId, { targetWorkflowState: "COMPLETED" });
    const bar = page.getByRole("progressbar");
    await expectVisible(bar);
    await page.waitForFunction(() => document.querySelector("[data-testid=workflow-state]")?.textContent === "COMPLETED", null, { timeout: 60_000, polling: 50 }).catch(async (error) => {
      await page.screenshot({ path: join(out, "failed-progress.png"), fullPage: true });
      throw error;
    });
    expect(await bar.getAttribute("aria-valuenow")).toBe("100");
    const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
    // Live: intermediate states and percentages arrived before COMPLETED 100, never going back.
    expect(seen[seen.length - 1]).toBe("COMPLETED 100");
    expect(seen.length, seen.join(" | ")).toBeGreaterThan(2);
    const percents = seen.map((entry) => Number(entry.split(" ")[1]));
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    await page.getByRole("button", { name: "Show effective dates" }).click();
    await expectVisible(page.getByRole("img", { name: "Entries by effective date" }));
    const sourceId = await page.locator("[data-source-id]").first().getAttribute("data-source-id");
    const metrics = await server.gql(`query($id: ID!) { analysisSourceEffectiveDateMetrics(id: $id, period: MONTH) { entriesInPeriod entriesOutOfPeriod inPeriodCountHistogram } }`, { id: sourceId });
    // Main still wraps each figure in {count, histogram, ...}; the wire reference (and the console) take plain values too.
    const raw = metrics.body.data.analysisSourceEffectiveDateMetrics;
    const count = (v: any) => (v && typeof v === "object" ? v.count : v);
    const histogram = raw.inPeriodCountHistogram.histogram ?? raw.inPeriodCountHistogram;
    expect(Object.keys(histogram)).toHaveLength(12);
    expect(count(raw.entriesInPeriod)).toBe(2000);
    await expectText(page, async () => (await page.locator(".effective-dates .muted").first().textContent()) ?? "", `In period 2000 · out of period ${count(raw.entriesOutOfPeriod)} · without valid date 0`);
    await page.screenshot({ path: join(out, "analysis-completed.png"), fullPage: true });
  });

  it("filters, sorts and pages the data table with the query language", async () => {
    await expectVisible(page.getByTestId("page-info"));
    expect(await page.getByTestId("page-info").textContent()).toBe("Page 1 · 50 rows");
    await page.getByLabel("Filter (query language, JSON)").fill('{"account": "10100"}');
    await page.getByLabel("Sort by").selectOption("debit");
    await page.getByLabel("Direction").selectOption("DESC");
    await page.getByRole("button", { name: "Apply" }).click();
    const accountCells = page.locator("table.data tbody tr td:nth-child(" + (await columnIndex(page, "account")) + ")");
    await page.waitForFunction(() => document.querySelectorAll("table.data tbody tr").length > 0);
    await expectText(page, async () => [...new Set(await accountCells.allTextContents())].join(), "10100");
    const debits = (await page.locator(`table.data tbody tr td:nth-child(${await columnIndex(page, "debit")})`).allTextContents()).filter(Boolean).map(Number);
    expect(debits.length).toBeGreaterThan(1);
    expect(debits).toEqual([...debits].sort((a, b) => b - a));
    // 2000 lines, one debit and one credit line per entry, accounts cycling over six: 10100 has 334 lines.
    await page.getByRole("button", { name: "Next" }).click();
    await expectText(page, async () => (await page.getByTestId("page-info").textContent()) ?? "", "Page 2 · 50 rows");
    const invalid = page.getByLabel("Filter (query language, JSON)");
    await invalid.fill('{"account": {"$gt": "1"}}');
    await page.getByRole("button", { name: "Apply" }).click();
    await expectVisible(page.getByRole("alert"));
    await invalid.fill('{"account": "10100"}');
    await page.getByRole("button", { name: "Apply" }).click();
    await page.setViewportSize({ width: 1366, height: 768 });
    await page.screenshot({ path: join(out, "data-table.png"), fullPage: true });
    // The console is a GraphQL client only.
    expect([...graphqlPaths]).toEqual(["/api/graphql"]);
  });

  let scored: { analysisId: string; engagementId: string; resultId: string };
  const ledger = scoredLedger();

  it("runs an analysis and charts its entries by risk level and by control point, as the result's summary counts them", async () => {
    // Ingested through the API (mappings verified); run from the console.
    const analysis = await ledgerAnalysis(server, "Scored", ledger.csv);
    // Three weighed control points in every risk group spread this small ledger over the levels
    // (with the library's weights nearly every entry of it is low).
    const WEIGHTS: Record<string, number> = { journal_entry_weekend_post: 40, journal_entry_material_value: 30, journal_entry_last_3_digits: 30 };
    await updateConfiguration(server, analysis.analysisId, (current) => ({
      configuration: {
        riskGroups: current.configuration.riskGroups.map((g: { id: string; controlPointWeights: Record<string, number> }) => ({
          id: g.id,
          controlPointWeights: Object.fromEntries(Object.keys(g.controlPointWeights).map((k) => [k, WEIGHTS[k] ?? 0])),
        })),
      },
    }));
    await page.goto(`${server.url}/console/#/analysis/${analysis.analysisId}`);
    await expectVisible(page.getByText("No completed run yet."));
    const run = page.getByRole("button", { name: "Run analysis" });
    await run.focus();
    await page.keyboard.press("Enter");
    const summary = page.locator(".result-summary");
    await summary.waitFor({ state: "visible", timeout: 90_000 }).catch(async (error) => {
      await page.screenshot({ path: join(out, "failed-run.png"), fullPage: true });
      throw error;
    });
    const resultId = (await summary.getAttribute("data-result-id"))!;
    scored = { ...analysis, resultId };
    const api = await server.gql(
      `query($id: ID!, $r: ID!) { analysis(id: $id) { latestAnalysisResultId } analysisResult(id: $r) { status summary { entries { total high medium low unscored } transactions { total high medium low unscored }
        controlPoints { name displayName available failedEntries failedTransactions } } } }`,
      { id: analysis.analysisId, r: resultId },
    );
    expect(api.body.errors).toBeUndefined();
    expect(api.body.data.analysis.latestAnalysisResultId).toBe(resultId);
    const { status, summary: expected } = api.body.data.analysisResult;
    expect(status).toBe("COMPLETED");
    const entries = expected.entries;
    expect(entries.high + entries.medium + entries.low + entries.unscored).toBe(entries.total);
    expect(entries.total).toBeGreaterThan(300);
    // The planted anomalies put entries above the low level: the chart has more than one bar.
    expect(entries.high).toBeGreaterThan(0);
    expect(entries.medium).toBeGreaterThan(0);

    // The risk-level chart: what its canvas draws (its label carries the figures) and the table beside it.
    const levels = page.getByRole("img", { name: /^Entries by risk level:/ });
    expect(await levels.getAttribute("aria-label")).toBe(`Entries by risk level: High ${entries.high}, Medium ${entries.medium}, Low ${entries.low}, Unscored ${entries.unscored} of ${entries.total}`);
    for (const level of ["high", "medium", "low", "unscored", "total"]) {
      const cells = await summary.locator(`tr[data-level=${level}] td`).allTextContents();
      expect(cells.map(Number), level).toEqual([entries[level], expected.transactions[level]]);
    }
    // The control-point chart: every control point that flagged an entry, most entries first, with its count; the figures of all computed ones.
    const fired = expected.controlPoints
      .filter((c: any) => c.available && c.failedEntries > 0)
      .sort((a: any, b: any) => b.failedEntries - a.failedEntries || a.displayName.localeCompare(b.displayName));
    expect(fired.map((c: any) => c.name)).toContain("journal_entry_weekend_post");
    const label = await page.getByRole("img", { name: /^Entries by control point:/ }).getAttribute("aria-label");
    expect(label).toBe(`Entries by control point: ${fired.map((c: any) => `${c.displayName} ${c.failedEntries}`).join(", ")}`);
    const computed = expected.controlPoints.filter((c: any) => c.available);
    const rows = await summary.locator("tr[data-control-point]").evaluateAll((trs) => trs.map((tr) => [tr.getAttribute("data-control-point"), ...[...tr.querySelectorAll("td")].slice(1).map((td) => Number(td.textContent))]));
    expect(rows).toEqual(computed.map((c: any) => [c.name, c.failedEntries, c.failedTransactions]));
    // Both canvases were drawn on (Chart.js from the server's bundle, no CDN).
    const painted = await page.locator(".result-summary canvas").evaluateAll((canvases) =>
      canvases.map((c) => {
        const canvas = c as HTMLCanvasElement;
        const pixels = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
        let opaque = 0;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) opaque++;
        return opaque;
      }),
    );
    expect(painted).toHaveLength(2);
    expect(painted.every((n) => n > 1000), String(painted)).toBe(true);
    await page.setViewportSize({ width: 1366, height: 768 });
    await summary.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(out, "analysis-results.png"), fullPage: true });
  });

  it("opens a result entry in the data table browser and shows its score explanation, by keyboard", async () => {
    const lines = await resultTable(server, scored.resultId, "gl_journal_lines");
    await page.locator("select[name=table]").selectOption(lines.id);
    await page.getByLabel("Filter (query language, JSON)").fill(JSON.stringify({ txid: ledger.weekendTxid, account: "5400" }));
    await page.getByRole("button", { name: "Apply" }).click();
    const explain = page.getByRole("button", { name: /^Explain entry \d+$/ });
    await expectText(page, async () => String(await explain.count()), "1");
    const rowid = (await explain.getAttribute("aria-label"))!.replace("Explain entry ", "");
    await explain.focus();
    await page.keyboard.press("Enter");
    const panel = page.getByRole("region", { name: new RegExp(`^Entry ${rowid}`) });
    await expectVisible(panel.getByTestId("explain-summary"));
    const api = await server.gql(
      `query($r: ID!, $row: ID!) { explainEntryScore(analysisResultId: $r, rowid: $row) { risk riskLevel summary controlPoints { name failed score weight contribution reason } } }`,
      { r: scored.resultId, row: rowid },
    );
    expect(api.body.errors).toBeUndefined();
    const x = api.body.data.explainEntryScore;
    // The heading took the focus; it shows the engine's risk, level and summary.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("explain-h");
    expect(await panel.getByTestId("explain-risk").textContent()).toBe((x.risk / 100).toFixed(2));
    expect(await panel.getByTestId("explain-level").textContent()).toBe(x.riskLevel);
    expect(await panel.getByTestId("explain-summary").textContent()).toBe(x.summary);
    const shown = await panel.locator("tr[data-control-point]").evaluateAll((trs) =>
      Object.fromEntries(trs.map((tr) => [tr.getAttribute("data-control-point"), [...tr.querySelectorAll("td")].map((td) => td.textContent)])),
    );
    expect(Object.keys(shown).sort()).toEqual(x.controlPoints.map((p: any) => p.name).sort());
    for (const p of x.controlPoints) {
      const [fired, score, weight, adds, , reason] = shown[p.name];
      expect([fired, score, weight, adds, reason], p.name).toEqual([p.failed ? "yes" : "no", (p.score / 100).toFixed(2), String(p.weight), (p.contribution / 100).toFixed(2), p.reason]);
    }
    expect(shown.journal_entry_weekend_post.slice(0, 2)).toEqual(["yes", "100.00"]);
    expect(shown.journal_entry_weekend_post[5]).toBe("entered on Saturday 2023-03-18");
    await page.screenshot({ path: join(out, "explanation.png"), fullPage: true });
    // Escape closes it and gives the focus back to the row's button.
    await page.keyboard.press("Escape");
    await panel.waitFor({ state: "detached" });
    expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe(`Explain entry ${rowid}`);

    // A row of the result's transactions table opens the transaction's explanation.
    const transactions = await resultTable(server, scored.resultId, "gl_journal_tx");
    await page.locator("select[name=table]").selectOption(transactions.id);
    await page.getByLabel("Filter (query language, JSON)").fill(JSON.stringify({ txid: ledger.weekendTxid }));
    await page.getByRole("button", { name: "Apply" }).click();
    const explainTx = page.getByRole("button", { name: /^Explain transaction \d+$/ });
    await expectText(page, async () => String(await explainTx.count()), "1");
    const txRowid = (await explainTx.getAttribute("aria-label"))!.replace("Explain transaction ", "");
    await explainTx.click();
    const txPanel = page.getByRole("region", { name: new RegExp(`^Transaction ${txRowid}`) });
    await expectVisible(txPanel.getByTestId("explain-summary"));
    const txApi = await server.gql(`query($r: ID!, $row: ID!) { explainTransactionScore(analysisResultId: $r, rowid: $row) { txid summary } }`, { r: scored.resultId, row: txRowid });
    expect(txApi.body.data.explainTransactionScore.txid).toBe(ledger.weekendTxid);
    expect(await txPanel.getByTestId("explain-summary").textContent()).toBe(txApi.body.data.explainTransactionScore.summary);
    await page.getByRole("button", { name: "Close explanation" }).click();
    await txPanel.waitFor({ state: "detached" });
  });

  it("follows every source of an engagement on one graphql-ws subscription", async () => {
    const fixture = await analysisFixture(server, "Live");
    const second = await server.api.post("/analyses", { engagementId: fixture.engagementId, analysisTypeId: "4b8360d00000000000000000", name: "Live second GL", analysisPeriods: [{ startDate: "2023-01-01", endDate: "2023-12-31" }] });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const secondFixture = { ...fixture, analysisId: second.body.id, periodId: second.body.analysisPeriods[0].id };
    const files = await Promise.all([1, 2, 3].map((n) => uploadFile(server, fixture.engagementId, `live-${n}.csv`, journalCsv(300 * n))));
    const before = sent.length;
    await page.goto(`${server.url}/console/#/engagement/${fixture.engagementId}`);
    const summary = page.getByTestId("engagement-summary");
    await expectText(page, async () => (await summary.textContent()) ?? "", "2 analyses · 0 sources · 0 completed");
    // The screen's subscription is on its way (events published before the server has it are not replayed).
    await expectText(page, async () => String(sent.slice(before).some((m) => m.type === "subscribe")), "true");
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = [
      await createSource(server, fixture, files[0], { targetWorkflowState: "COMPLETED" }),
      await createSource(server, fixture, files[1], { targetWorkflowState: "COMPLETED" }),
      await createSource(server, secondFixture, files[2], { targetWorkflowState: "COMPLETED" }),
    ];
    await expectText(page, async () => (await summary.textContent()) ?? "", "2 analyses · 3 sources · 3 completed", 90_000);
    await expectVisible(page.locator("[data-testid=workflow-state]", { hasText: "COMPLETED" }));
    expect(await page.locator("[data-testid=workflow-state]").allTextContents()).toEqual(["COMPLETED", "COMPLETED", "COMPLETED"]);
    expect(await page.getByRole("progressbar").evaluateAll((bars) => bars.map((b) => b.getAttribute("aria-valuenow")))).toEqual(["100", "100", "100"]);
    await page.screenshot({ path: join(out, "engagement.png"), fullPage: true });

    // Exactly one subscription since the screen opened, the engagement-wide `events`, on the page's one connection.
    const subscribes = sent.slice(before).filter((m) => m.type === "subscribe");
    expect(subscribes, JSON.stringify(subscribes)).toHaveLength(1);
    expect(subscribes[0].payload!.query).toContain("events(engagementId: $engagementId");
    expect(subscribes[0].payload!.variables).toEqual({ engagementId: fixture.engagementId });
    const socket = subscribes[0].socket;
    // All three sources' live progress came over it, and no screen ever subscribed per source.
    const progressOf = new Set(
      received.filter((m) => m.socket === socket && m.type === "next" && m.id === subscribes[0].id && m.payload?.data?.events?.type === "analysis-source.progress").map((m) => m.payload.data.events.entityId),
    );
    expect([...progressOf].sort()).toEqual(started.map((s) => s.entityId).sort());
    expect(sent.filter((m) => m.type === "subscribe" && !m.payload!.query.includes("events("))).toEqual([]);
    expect([...graphqlPaths]).toEqual(["/api/graphql"]);
    // Every query the console sent is valid on this schema: the only errors were the two the tests provoked.
    const errors = (await Promise.all(answers)).flat();
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/token/i);
    expect(errors[1]).toMatch(/account/);
    expect(received.filter((m) => m.type === "error")).toEqual([]);
  });
});

/**
 * About 200 transactions of a year: a small background, the planted anomalies (so entries land on
 * every risk level) and one weekend posting (Saturday 2023-03-18) whose entry the test explains.
 */
function scoredLedger(): { csv: string; weekendTxid: string } {
  const weekend: Tx = { date: "2023-03-18", type: "AP", user: "ap_clerk", memo: "Weekend bill", lines: [{ account: "5400", amount: 31_415 }, { account: "2000", amount: -31_415 }] };
  const transactions: Tx[] = [...background(11, { sales: 3, collections: 2, purchases: 3, payroll: 1, supplies: 2 }), ...new Set(Object.values(plants()).flat()), weekend];
  transactions.sort((a, b) => a.date.localeCompare(b.date)).forEach((t, i) => (t.txid = `T${String(i + 1).padStart(5, "0")}`));
  return { csv: ledgerCsv(transactions), weekendTxid: weekend.txid! };
}

async function columnIndex(page: Page, field: string): Promise<number> {
  const headers = await page.locator("table.data thead th").allTextContents();
  const index = headers.indexOf(field);
  expect(index, `column ${field} in ${headers.join(", ")}`).toBeGreaterThanOrEqual(0);
  return index + 1;
}

async function expectVisible(locator: ReturnType<Page["getByRole"]>): Promise<void> {
  await locator.first().waitFor({ state: "visible", timeout: 20_000 });
}

async function expectText(_page: Page, read: () => Promise<string>, expected: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    last = await read();
    if (last === expected) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(last).toBe(expected);
}
