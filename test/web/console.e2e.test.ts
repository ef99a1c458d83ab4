import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { analysisFixture, createSource, uploadFile, type SourceFixture } from "../helpers/analysis-sources.js";
import { journalCsv } from "../helpers/ledger.js";
import { chromiumAvailable, launchChromium, outputDir } from "../helpers/browser.js";

/**
 * The web console in headless Chromium: a ledger uploaded through the API appears, its progress bar
 * reaches COMPLETED over graphql-ws, the effective-date chart draws, and the data table filters.
 * One browser, one page, one flow: browser tests are the slowest kind.
 */
describe.runIf(chromiumAvailable())("web console (headless Chromium)", () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let fixture: SourceFixture;
  const out = outputDir("console");
  const graphqlPaths = new Set<string>();

  beforeAll(async () => {
    [server, browser] = await Promise.all([startTestServer(), launchChromium()]);
    fixture = await analysisFixture(server, "Console");
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith("/api/")) graphqlPaths.add(url.pathname);
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
});

async function columnIndex(page: Page, field: string): Promise<number> {
  const headers = await page.locator("table.data thead th").allTextContents();
  const index = headers.indexOf(field);
  expect(index, `column ${field} in ${headers.join(", ")}`).toBeGreaterThanOrEqual(0);
  return index + 1;
}

async function expectVisible(locator: ReturnType<Page["getByRole"]>): Promise<void> {
  await locator.first().waitFor({ state: "visible", timeout: 20_000 });
}

async function expectText(_page: Page, read: () => Promise<string>, expected: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  let last = "";
  while (Date.now() < deadline) {
    last = await read();
    if (last === expected) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(last).toBe(expected);
}
