// The web console: a client of the public GraphQL API only (/api/graphql over HTTP, graphql-ws for
// live progress). Bundled by the server with esbuild from node_modules (web/console.ts): no CDN.
import { h, render } from "preact";
import { useEffect, useRef, useState, useCallback } from "preact/hooks";
import htm from "htm";
import { createClient } from "graphql-ws";
import { Chart, BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip } from "chart.js";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);
const html = htm.bind(h);
const TOKEN_KEY = "fap.console.token";
const TERMINAL = new Set(["COMPLETED", "FAILED", "CANCELLED"]);

// ---------------------------------------------------------------- API
function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

async function gql(query, variables = {}) {
  const response = await fetch("/api/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token()}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = await response.json().catch(() => ({ errors: [{ message: `HTTP ${response.status}` }] }));
  if (body.errors?.length) {
    const error = new Error(body.errors.map((e) => e.message).join("; "));
    error.status = body.errors[0]?.extensions?.status ?? response.status;
    throw error;
  }
  return body.data;
}

let wsClient;
function ws() {
  wsClient ??= createClient({
    url: `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/graphql`,
    connectionParams: () => ({ Authorization: `Bearer ${token()}` }),
    lazy: true,
    retryAttempts: 5,
  });
  return wsClient;
}

function useQuery(query, variables, deps) {
  const [state, setState] = useState({ loading: true });
  const reload = useCallback(() => {
    setState((s) => ({ ...s, loading: true }));
    gql(query, variables).then(
      (data) => setState({ data }),
      (error) => setState({ error }),
    );
  }, deps);
  useEffect(reload, [reload]);
  return { ...state, reload };
}

// ---------------------------------------------------------------- routing (#/analysis/<id>)
function useRoute() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  const [, kind, id] = /^#\/(\w+)\/([\w-]+)/.exec(hash) ?? [];
  return { kind, id };
}

// ---------------------------------------------------------------- sign-in
function SignIn({ onSignedIn }) {
  const [value, setValue] = useState("");
  const [error, setError] = useState();
  const submit = async (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, value.trim());
    try {
      await gql("query { organizations(size: 1) { totalElements } }");
      onSignedIn();
    } catch (e) {
      sessionStorage.removeItem(TOKEN_KEY);
      setError(e.message);
    }
  };
  return html`<main class="signin"><section class="card">
    <h2>Sign in</h2>
    <p class="muted">Paste an API token. It is kept in this browser tab's session only (sessionStorage) and sent to this server alone.</p>
    <form onSubmit=${submit} class="row">
      <label style="flex:1">API token<input type="password" name="token" autocomplete="off" required value=${value} onInput=${(e) => setValue(e.target.value)} /></label>
      <button type="submit">Sign in</button>
    </form>
    ${error && html`<p class="error-box" role="alert">${error}</p>`}
  </section></main>`;
}

// ---------------------------------------------------------------- navigation tree
const TREE = `query Tree {
  organizations(size: 200, sort: ["name"]) { content { id name
    engagements(sort: ["name"]) { id name analyses(sort: ["name"]) { id name } } } }
}`;

function Tree({ current }) {
  const { data, error, loading } = useQuery(TREE, {}, []);
  if (error) return html`<p class="error-box">${error.message}</p>`;
  if (loading && !data) return html`<p class="muted">Loading…</p>`;
  const orgs = data.organizations.content;
  if (orgs.length === 0) return html`<p class="muted">No organizations yet.</p>`;
  return html`<ul aria-label="Organizations, engagements and analyses">
    ${orgs.map((o) => html`<li key=${o.id}><div class="org">${o.name}</div>
      <ul>${o.engagements.map((e) => html`<li key=${e.id}><div class="eng">${e.name}</div>
        <ul>${e.analyses.map((a) => html`<li key=${a.id}><a href=${`#/analysis/${a.id}`} aria-current=${current === a.id ? "page" : undefined}>${a.name}</a></li>`)}
          ${e.analyses.length === 0 && html`<li class="muted">no analyses</li>`}</ul></li>`)}</ul></li>`)}
  </ul>`;
}

// ---------------------------------------------------------------- analysis
const ANALYSIS = `query Analysis($id: ID!, $tables: JSON) {
  analysis(id: $id) { id name archived latestAnalysisResultId analysisPeriods { id startDate endDate }
    engagement { id name organization { id name } }
    analysisSources(sort: ["creationDate"]) { id version workflowState targetWorkflowState errors { code defaultMessage } warnings { code defaultMessage } fileManagerFiles fileInfo creationDate } }
  dataTables(filter: $tables, includeUnstableSchemas: true, size: 100) { content { id logicalName type rowCount analysisSourceId analysisResultId } }
  analysisResults(filter: $tables, size: 20, sort: ["creationDate,desc"]) { content { id interim creationDate } }
}`;

function Analysis({ id }) {
  const { data, error, reload } = useQuery(ANALYSIS, { id, tables: { analysisId: id } }, [id]);
  // New, changed and finished sources (and their data tables) of this analysis show up live.
  useEffect(
    () =>
      ws().subscribe(
        {
          query: `subscription { entityChanged(types: ["analysis-source.created", "analysis-source.updated", "analysis-source.deleted", "ingestion.complete", "ingestion.failed", "data-table.created"]) { type payload } }`,
        },
        { next: ({ data }) => data?.entityChanged.payload?.analysisId === id && reload(), error: () => undefined, complete: () => undefined },
      ),
    [id],
  );
  if (error) return html`<p class="error-box" role="alert">${error.message}</p>`;
  if (!data) return html`<p class="muted">Loading…</p>`;
  const a = data.analysis;
  const tables = data.dataTables.content;
  return html`
    <h2 style="margin-top:0">${a.name} <span class="muted" style="font-weight:400">· ${a.engagement.organization.name} / ${a.engagement.name}</span></h2>
    <p class="muted">Periods: ${a.analysisPeriods.map((p) => `${p.startDate} – ${p.endDate}`).join(", ")}${a.archived ? " · archived" : ""}</p>
    <section class="card" aria-labelledby="sources-h"><h3 id="sources-h">Analysis sources (${a.analysisSources.length})</h3>
      ${a.analysisSources.length === 0 && html`<p class="muted">No sources yet: upload a file and create an analysis source (API or <code>fap ingest</code>).</p>`}
      ${a.analysisSources.map((s) => html`<${Source} key=${s.id} source=${s} onDone=${reload} />`)}
    </section>
    ${tables.length > 0 && html`<${DataTables} tables=${tables} />`}
    <${Results} analysis=${a} results=${data.analysisResults.content} tables=${tables} />`;
}

/** The source's original file name, from the file manager (one query per source, cached). */
const names = new Map();
function useFileName(source) {
  const id = source.fileManagerFiles?.ORIGINAL;
  const [name, setName] = useState(names.get(id));
  useEffect(() => {
    if (!id || names.has(id)) return;
    gql(`query($id: ID!) { fileManagerEntity(id: $id) { ... on Entity { id } ... on FileManagerFile { name } } }`, { id }).then(
      (d) => {
        names.set(id, d.fileManagerEntity.name);
        setName(d.fileManagerEntity.name);
      },
      () => undefined,
    );
  }, [id]);
  return name ?? `source ${source.id}`;
}

function tableMetrics(source) {
  // The source's reading of its staged rows, with the whole-file metrics.
  const meta = source.fileInfo?.tableMetadata ?? source.fileInfo?.metadata;
  const overall = meta?.overallDataTypeMetrics;
  if (!overall) return [];
  return [
    ["Rows", overall.totalRecords ?? overall.totalRows],
    ["Columns", overall.columnCount],
    ["Blank records", overall.blankRecords],
    ["Uneven rows", meta.unevenColumnsMetrics?.count],
    ["Null values", meta.nullValueMetrics?.count],
    ["Inconsistent dates", meta.inconsistentDateMetrics?.count],
  ].filter(([, v]) => v !== undefined);
}

function Source({ source, onDone }) {
  const [progress, setProgress] = useState({ workflowState: source.workflowState, percent: TERMINAL.has(source.workflowState) ? 100 : 0 });
  const [showDates, setShowDates] = useState(false);
  useEffect(() => {
    if (TERMINAL.has(source.workflowState)) return undefined;
    // One subscription per unfinished source, all on one graphql-ws connection.
    return ws().subscribe(
      { query: `subscription($id: ID!) { analysisSourceProgress(analysisSourceId: $id) { workflowState percent stepPercent message } }`, variables: { id: source.id } },
      {
        next: ({ data }) => data && setProgress(data.analysisSourceProgress),
        error: () => undefined,
        complete: () => onDone(),
      },
    );
  }, [source.id, source.workflowState]);
  const state = progress.workflowState;
  const done = state === "COMPLETED";
  const failed = state === "FAILED";
  const metrics = tableMetrics(source);
  const name = useFileName(source);
  const hasDates = done || ["EFFECTIVE_DATE_METRICS_ANALYZED", "ANALYSIS_PERIOD_SELECTED", "CHECKING_INTEGRITY", "INTEGRITY_CHECKED", "PARSING", "PARSED"].includes(state);
  return html`<article class="source" data-source-id=${source.id} style="border-top:1px solid var(--line);padding:.5rem 0">
    <div class="row" style="justify-content:space-between;align-items:center;margin:0">
      <strong>${name}</strong>
      <span class=${`state ${state}`} data-testid="workflow-state">${state}</span>
    </div>
    <div class=${`progress${done ? " done" : ""}${failed ? " failed" : ""}`} role="progressbar" aria-label=${`Ingestion progress of ${name}`}
      aria-valuemin="0" aria-valuemax="100" aria-valuenow=${progress.percent} aria-valuetext=${`${state} ${progress.percent}%`}>
      <div style=${`width:${progress.percent}%`}></div></div>
    <div class="muted" aria-live="polite">${progress.percent}%${progress.stepPercent != null && !TERMINAL.has(state) ? ` · step ${progress.stepPercent}%` : ""}${progress.message ? ` · ${progress.message}` : ""}</div>
    ${source.errors.length > 0 && html`<ul class="errors" aria-label="Errors">${source.errors.map((e) => html`<li>${e.defaultMessage}</li>`)}</ul>`}
    ${source.warnings.length > 0 && html`<ul class="warnings" aria-label="Warnings">${source.warnings.map((e) => html`<li>${e.defaultMessage}</li>`)}</ul>`}
    ${metrics.length > 0 && html`<dl class="metrics">${metrics.map(([k, v]) => html`<div><dt>${k}</dt><dd>${Number(v).toLocaleString()}</dd></div>`)}</dl>`}
    ${hasDates && html`<button class="secondary" aria-expanded=${showDates} onClick=${() => setShowDates(!showDates)}>${showDates ? "Hide" : "Show"} effective dates</button>`}
    ${hasDates && showDates && html`<${EffectiveDates} sourceId=${source.id} />`}
  </article>`;
}

function BarChart({ labels, datasets, label, stacked = true }) {
  const canvas = useRef();
  useEffect(() => {
    const chart = new Chart(canvas.current, {
      type: "bar",
      data: { labels, datasets },
      options: { responsive: true, maintainAspectRatio: false, animation: false, scales: { x: { stacked }, y: { stacked, beginAtZero: true } } },
    });
    return () => chart.destroy();
  }, [JSON.stringify(labels), JSON.stringify(datasets)]);
  return html`<div class="chart"><canvas ref=${canvas} role="img" aria-label=${label}></canvas></div>`;
}

function EffectiveDates({ sourceId }) {
  const [period, setPeriod] = useState("MONTH");
  const { data, error } = useQuery(
    `query($id: ID!, $p: EffectiveDatePeriodType!) { analysisSourceEffectiveDateMetrics(id: $id, period: $p) { entriesInPeriod entriesOutOfPeriod entriesWithoutValidDate inPeriodCountHistogram outOfPeriodCountHistogram } }`,
    { id: sourceId, p: period },
    [sourceId, period],
  );
  // Plain numbers and {period: count} objects (wire reference); older servers wrap each in {count, histogram, ...}.
  const raw = data?.analysisSourceEffectiveDateMetrics;
  const count = (v) => (v && typeof v === "object" ? v.count : v);
  const histogram = (v) => (v && typeof v === "object" && "histogram" in v ? v.histogram ?? {} : v ?? {});
  const m = raw && {
    entriesInPeriod: count(raw.entriesInPeriod),
    entriesOutOfPeriod: count(raw.entriesOutOfPeriod),
    entriesWithoutValidDate: count(raw.entriesWithoutValidDate),
    inPeriodCountHistogram: histogram(raw.inPeriodCountHistogram),
    outOfPeriodCountHistogram: histogram(raw.outOfPeriodCountHistogram),
  };
  const labels = m ? [...new Set([...Object.keys(m.inPeriodCountHistogram), ...Object.keys(m.outOfPeriodCountHistogram)])].sort() : [];
  return html`<div class="effective-dates" style="margin-top:.5rem">
    <div class="row"><label>Period<select value=${period} onChange=${(e) => setPeriod(e.target.value)}>
      <option value="DAY">Day</option><option value="WEEK">Week</option><option value="MONTH">Month</option></select></label>
      ${m && html`<span class="muted">In period ${m.entriesInPeriod} · out of period ${m.entriesOutOfPeriod} · without valid date ${m.entriesWithoutValidDate}</span>`}</div>
    ${error && html`<p class="error-box">${error.message}</p>`}
    ${m && html`<${BarChart} label="Entries by effective date" labels=${labels} datasets=${[
      { label: "In period", data: labels.map((l) => m.inPeriodCountHistogram[l] ?? 0), backgroundColor: "#1f5fbf" },
      { label: "Out of period", data: labels.map((l) => m.outOfPeriodCountHistogram[l] ?? 0), backgroundColor: "#d9822b" },
    ]} />`}
  </div>`;
}

// ---------------------------------------------------------------- data tables
const PAGE_SIZE = 50;

function DataTables({ tables }) {
  const [tableId, setTableId] = useState(tables[0].id);
  const table = tables.find((t) => t.id === tableId) ?? tables[0];
  return html`<section class="card" aria-labelledby="dt-h"><h3 id="dt-h">Data tables</h3>
    <div class="row"><label>Table<select value=${table.id} onChange=${(e) => setTableId(e.target.value)} name="table">
      ${tables.map((t) => html`<option value=${t.id}>${t.logicalName ?? t.id} (${t.type}, ${Number(t.rowCount).toLocaleString()} rows)</option>`)}</select></label></div>
    <${TableBrowser} key=${table.id} tableId=${table.id} />
  </section>`;
}

function TableBrowser({ tableId }) {
  const columns = useQuery(`query($id: ID!) { dataTable(id: $id) { id columns { field type sortable filterOnly originalName } } }`, { id: tableId }, [tableId]);
  const [filterText, setFilterText] = useState("");
  const [applied, setApplied] = useState({ query: undefined, sort: undefined, page: 0 });
  const [rows, setRows] = useState();
  const [error, setError] = useState();
  const [sortField, setSortField] = useState("");
  const [direction, setDirection] = useState("ASC");

  useEffect(() => {
    let cancelled = false;
    setError(undefined);
    gql(`query($id: ID!, $input: DataTableDataInput) { dataTableData(id: $id, input: $input) { content number size numberOfElements first last } }`, {
      id: tableId,
      input: { page: applied.page, pageSize: PAGE_SIZE, query: applied.query, sort: applied.sort },
    }).then(
      (d) => !cancelled && setRows(d.dataTableData),
      (e) => !cancelled && setError(e.message),
    );
    return () => (cancelled = true);
  }, [tableId, JSON.stringify(applied)]);

  const submit = (event) => {
    event.preventDefault();
    let query;
    if (filterText.trim()) {
      try {
        query = JSON.parse(filterText);
      } catch (e) {
        setError(`The filter is not valid JSON: ${e.message}`);
        return;
      }
    }
    setApplied({ query, sort: sortField ? [{ field: sortField, direction }] : undefined, page: 0 });
  };
  const cols = (columns.data?.dataTable.columns ?? []).filter((c) => !c.filterOnly);
  return html`<div class="table-browser">
    <form class="row" onSubmit=${submit} aria-label="Filter and sort">
      <label>Filter (query language, JSON)<textarea name="filter" rows="2" placeholder='{"account": "10100", "debit": {"$gt": 100000}}' value=${filterText} onInput=${(e) => setFilterText(e.target.value)}></textarea></label>
      <label>Sort by<select name="sort" value=${sortField} onChange=${(e) => setSortField(e.target.value)}>
        <option value="">(table default)</option>${cols.filter((c) => c.sortable).map((c) => html`<option value=${c.field}>${c.field}</option>`)}</select></label>
      <label>Direction<select name="direction" value=${direction} onChange=${(e) => setDirection(e.target.value)}><option value="ASC">ascending</option><option value="DESC">descending</option></select></label>
      <button type="submit">Apply</button>
    </form>
    ${error && html`<p class="error-box" role="alert">${error}</p>`}
    ${rows && html`<div class="row" style="align-items:center">
        <button class="secondary" disabled=${rows.first} onClick=${() => setApplied({ ...applied, page: applied.page - 1 })}>Previous</button>
        <span aria-live="polite" data-testid="page-info">Page ${rows.number + 1} · ${rows.numberOfElements} rows</span>
        <button class="secondary" disabled=${rows.last} onClick=${() => setApplied({ ...applied, page: applied.page + 1 })}>Next</button></div>
      <div class="table-wrap" tabindex="0" aria-label="Table rows"><table class="data"><thead><tr>${cols.map((c) => html`<th scope="col" title=${c.originalName ?? ""}>${c.field}</th>`)}</tr></thead>
        <tbody>${rows.content.map((r) => html`<tr>${cols.map((c) => html`<td class=${c.type === "STRING" || c.type === "DATE" ? "" : "num"}>${formatCell(r[c.field], c.type)}</td>`)}</tr>`)}</tbody></table></div>`}
  </div>`;
}

function formatCell(value, type) {
  if (value === undefined || value === null) return "";
  if (type === "MONEY_100") return (Number(value) / 100).toFixed(2);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

// ---------------------------------------------------------------- results
function Results({ analysis, results, tables }) {
  const resultTables = tables.filter((t) => t.analysisResultId);
  return html`<section class="card" aria-labelledby="res-h"><h3 id="res-h">Analysis results</h3>
    ${results.length === 0 ? html`<p class="muted">No run yet.</p>` : html`<ul>${results.map((r) => html`<li>${r.creationDate}${r.interim ? " (interim)" : ""} · <code>${r.id}</code></li>`)}</ul>`}
    ${resultTables.length > 0
      ? html`<${RiskCharts} tables=${resultTables} />`
      : html`<p class="muted">Distributions by risk level and control point appear here once this server's analysis engine publishes scored result tables (not available in this server's schema yet).</p>`}
  </section>`;
}

/** Counts rows per value of a column through the data endpoint (one filtered page per value). */
function RiskCharts({ tables }) {
  const [counts, setCounts] = useState();
  useEffect(() => {
    (async () => {
      const out = {};
      for (const t of tables) {
        const { dataTable } = await gql(`query($id: ID!) { dataTable(id: $id) { columns { field } } }`, { id: t.id });
        const level = dataTable.columns.find((c) => /risk_?level/i.test(c.field));
        if (!level) continue;
        for (const value of ["HIGH", "MEDIUM", "LOW"]) {
          let n = 0;
          for (let page = 0; page < 50; page++) {
            const { dataTableData } = await gql(`query($id: ID!, $input: DataTableDataInput) { dataTableData(id: $id, input: $input) { numberOfElements last } }`, {
              id: t.id,
              input: { page, pageSize: 2000, query: { [level.field]: value }, excludeFields: [] },
            });
            n += dataTableData.numberOfElements;
            if (dataTableData.last) break;
          }
          out[value] = (out[value] ?? 0) + n;
        }
      }
      setCounts(out);
    })().catch(() => setCounts({}));
  }, [tables.map((t) => t.id).join()]);
  if (!counts) return html`<p class="muted">Counting…</p>`;
  const labels = Object.keys(counts);
  if (labels.length === 0) return html`<p class="muted">The result tables carry no risk level column.</p>`;
  return html`<${BarChart} label="Entries by risk level" stacked=${false} labels=${labels} datasets=${[{ label: "Entries", data: labels.map((l) => counts[l]), backgroundColor: ["#b3261e", "#d9822b", "#1c7c3a"] }]} />`;
}

// ---------------------------------------------------------------- shell
function App() {
  const [signedIn, setSignedIn] = useState(Boolean(token()));
  const route = useRoute();
  if (!signedIn) return html`<${SignIn} onSignedIn=${() => setSignedIn(true)} />`;
  const signOut = () => {
    sessionStorage.removeItem(TOKEN_KEY);
    wsClient?.dispose();
    wsClient = undefined;
    setSignedIn(false);
  };
  return html`<a class="skip" href="#content">Skip to content</a>
    <header class="top"><h1>Ledger analytics console</h1><a href="/api/graphql" style="color:#fff">GraphiQL</a><button onClick=${signOut}>Sign out</button></header>
    <div class="layout"><nav class="tree" aria-label="Navigation"><${Tree} current=${route.id} /></nav>
      <main id="content" tabindex="-1">${route.kind === "analysis" ? html`<${Analysis} key=${route.id} id=${route.id} />` : html`<p class="muted">Choose an analysis on the left.</p>`}</main></div>`;
}

const root = document.getElementById("root");
root.textContent = "";
render(html`<${App} />`, root);
