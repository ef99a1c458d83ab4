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
    // Kept open a while after a screen's subscription ends, so moving between screens reuses it.
    lazyCloseTimeout: 5000,
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
  // Read again on each move, so organizations, engagements and analyses created meanwhile show up.
  const { data, error, loading } = useQuery(TREE, {}, [current]);
  if (error) return html`<p class="error-box">${error.message}</p>`;
  if (loading && !data) return html`<p class="muted">Loading…</p>`;
  const orgs = data.organizations.content;
  if (orgs.length === 0) return html`<p class="muted">No organizations yet.</p>`;
  return html`<ul aria-label="Organizations, engagements and analyses">
    ${orgs.map((o) => html`<li key=${o.id}><div class="org">${o.name}</div>
      <ul>${o.engagements.map((e) => html`<li key=${e.id}><div class="eng"><a href=${`#/engagement/${e.id}`} aria-current=${current === e.id ? "page" : undefined}>${e.name}</a></div>
        <ul>${e.analyses.map((a) => html`<li key=${a.id}><a href=${`#/analysis/${a.id}`} aria-current=${current === a.id ? "page" : undefined}>${a.name}</a></li>`)}
          ${e.analyses.length === 0 && html`<li class="muted">no analyses</li>`}</ul></li>`)}</ul></li>`)}
  </ul>`;
}

// ---------------------------------------------------------------- live events
// A screen opens exactly one graphql-ws subscription, `events` scoped to its engagement or analysis:
// the workflow progress of every source in scope, the analysis runs' progress and the domain events
// (a source created, a table published, a run completed) that call for a fresh read.
const EVENTS = `subscription Live($engagementId: ID, $analysisId: ID) {
  events(engagementId: $engagementId, analysisId: $analysisId) { type progress entityId state percent message payload }
}`;

function useLiveEvents(scope, reload) {
  const [sources, setSources] = useState({});
  const [runs, setRuns] = useState({});
  const reloadRef = useRef(reload);
  reloadRef.current = reload;
  const key = JSON.stringify(scope);
  useEffect(() => {
    let timer;
    // Domain events come in bursts (a source's update, its tables, ingestion.complete): one read after them.
    const reloadSoon = () => {
      clearTimeout(timer);
      timer = setTimeout(() => reloadRef.current(), 200);
    };
    const dispose = ws().subscribe(
      { query: EVENTS, variables: scope },
      {
        next: ({ data }) => {
          const event = data?.events;
          if (!event) return;
          if (event.type === "analysis-source.progress") {
            setSources((all) => ({ ...all, [event.entityId]: event.payload }));
            if (TERMINAL.has(event.state)) reloadSoon();
          } else if (event.type === "analysis-result.progress") {
            setRuns((all) => ({ ...all, [event.entityId]: event.payload }));
            if (event.state !== "RUNNING") reloadSoon();
          } else if (!event.progress) reloadSoon();
        },
        error: () => undefined,
        complete: () => undefined,
      },
    );
    // Events published while the connection was down (or before it was up) are not replayed: read again.
    const offConnected = ws().on("connected", reloadSoon);
    return () => {
      clearTimeout(timer);
      offConnected();
      dispose();
    };
  }, [key]);
  return { sources, runs };
}

/**
 * What a source's progress bar shows: the live event unless the read of the source is newer (a
 * higher version, or the same version at a terminal state); percentages of one walk only grow.
 */
function sourceProgress(source, live) {
  if (live && (live.sourceVersion == null || live.sourceVersion >= source.version)) return live;
  const terminal = TERMINAL.has(source.workflowState);
  return { workflowState: source.workflowState, percent: terminal ? 100 : live?.percent ?? 0, stepPercent: null, message: null };
}

// ---------------------------------------------------------------- engagement
const SOURCE_FIELDS = `id version workflowState targetWorkflowState errors { code defaultMessage } warnings { code defaultMessage } fileManagerFiles fileInfo creationDate`;

const ENGAGEMENT = `query Engagement($id: ID!) {
  engagement(id: $id) { id name organization { id name }
    analyses(sort: ["name"]) { id name archived latestAnalysisResultId analysisSources(sort: ["creationDate"]) { ${SOURCE_FIELDS} } } }
}`;

/** An engagement's analyses and all their sources, live over one subscription. */
function Engagement({ id }) {
  const { data, error, reload } = useQuery(ENGAGEMENT, { id }, [id]);
  const live = useLiveEvents({ engagementId: id }, reload);
  if (error) return html`<p class="error-box" role="alert">${error.message}</p>`;
  if (!data) return html`<p class="muted">Loading…</p>`;
  const e = data.engagement;
  const sources = e.analyses.flatMap((a) => a.analysisSources);
  const done = sources.filter((s) => sourceProgress(s, live.sources[s.id]).workflowState === "COMPLETED").length;
  return html`
    <h2 style="margin-top:0">${e.name} <span class="muted" style="font-weight:400">· ${e.organization.name}</span></h2>
    <p class="muted" data-testid="engagement-summary">${e.analyses.length} analyses · ${sources.length} sources · ${done} completed</p>
    ${e.analyses.length === 0 && html`<p class="muted">No analyses yet.</p>`}
    ${e.analyses.map(
      (a) => html`<section class="card" key=${a.id} aria-labelledby=${`an-${a.id}`}>
        <h3 id=${`an-${a.id}`}><a href=${`#/analysis/${a.id}`}>${a.name}</a>${a.archived ? html` <span class="muted">(archived)</span>` : ""}</h3>
        ${a.analysisSources.length === 0 && html`<p class="muted">No sources yet.</p>`}
        ${a.analysisSources.map((s) => html`<${Source} key=${s.id} source=${s} live=${live.sources[s.id]} />`)}
      </section>`,
    )}`;
}

// ---------------------------------------------------------------- analysis
const ANALYSIS = `query Analysis($id: ID!, $tables: JSON) {
  analysis(id: $id) { id name archived latestAnalysisResultId analysisPeriods { id startDate endDate }
    engagement { id name organization { id name } }
    analysisSources(sort: ["creationDate"]) { ${SOURCE_FIELDS} } }
  dataTables(filter: $tables, includeUnstableSchemas: true, size: 500, sort: ["creationDate,desc"]) { content { id logicalName type rowCount analysisSourceId analysisResultId } }
  analysisResults(filter: $tables, size: 20, sort: ["creationDate,desc"]) { content { id status interim creationDate completedDate error } }
}`;

function Analysis({ id }) {
  const { data, error, reload } = useQuery(ANALYSIS, { id, tables: { analysisId: id } }, [id]);
  const live = useLiveEvents({ analysisId: id }, reload);
  const [chosenResult, setChosenResult] = useState();
  if (error) return html`<p class="error-box" role="alert">${error.message}</p>`;
  if (!data) return html`<p class="muted">Loading…</p>`;
  const a = data.analysis;
  const results = data.analysisResults.content;
  const completed = results.filter((r) => r.status === "COMPLETED");
  const resultId = completed.some((r) => r.id === chosenResult) ? chosenResult : (a.latestAnalysisResultId ?? completed[0]?.id);
  // The sources' tables and the tables of the result on show (older runs' tables stay reachable by
  // choosing that run), oldest first; read newest first so that many runs never push the latest off the page.
  const tables = data.dataTables.content.filter((t) => t.analysisSourceId || (resultId && t.analysisResultId === resultId)).reverse();
  return html`
    <h2 style="margin-top:0">${a.name} <span class="muted" style="font-weight:400">· ${a.engagement.organization.name} / <a href=${`#/engagement/${a.engagement.id}`}>${a.engagement.name}</a></span></h2>
    <p class="muted">Periods: ${a.analysisPeriods.map((p) => `${p.startDate} – ${p.endDate}`).join(", ")}${a.archived ? " · archived" : ""}</p>
    <section class="card" aria-labelledby="sources-h"><h3 id="sources-h">Analysis sources (${a.analysisSources.length})</h3>
      ${a.analysisSources.length === 0 && html`<p class="muted">No sources yet: upload a file and create an analysis source (API or <code>fap ingest</code>).</p>`}
      ${a.analysisSources.map((s) => html`<${Source} key=${s.id} source=${s} live=${live.sources[s.id]} />`)}
    </section>
    <${Results} analysis=${a} results=${results} resultId=${resultId} onChoose=${setChosenResult} runs=${live.runs} onStarted=${reload} />
    ${tables.length > 0 && html`<${DataTables} key=${resultId ?? "sources"} tables=${tables} />`}`;
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

function ProgressBar({ label, percent, state, detail }) {
  const done = state === "COMPLETED";
  const failed = state === "FAILED";
  return html`<div class=${`progress${done ? " done" : ""}${failed ? " failed" : ""}`} role="progressbar" aria-label=${label}
      aria-valuemin="0" aria-valuemax="100" aria-valuenow=${percent} aria-valuetext=${`${state} ${percent}%`}>
      <div style=${`width:${percent}%`}></div></div>
    <div class="muted" aria-live="polite">${percent}%${detail ? ` · ${detail}` : ""}</div>`;
}

/** One source: its workflow state and progress bar (fed by the screen's subscription), errors and metrics. */
function Source({ source, live }) {
  const [showDates, setShowDates] = useState(false);
  const progress = sourceProgress(source, live);
  const state = progress.workflowState;
  const metrics = tableMetrics(source);
  const name = useFileName(source);
  const hasDates = state === "COMPLETED" || ["EFFECTIVE_DATE_METRICS_ANALYZED", "ANALYSIS_PERIOD_SELECTED", "CHECKING_INTEGRITY", "INTEGRITY_CHECKED", "PARSING", "PARSED"].includes(state);
  const detail = [progress.stepPercent != null && !TERMINAL.has(state) ? `step ${progress.stepPercent}%` : "", progress.message ?? ""].filter(Boolean).join(" · ");
  return html`<article class="source" data-source-id=${source.id} style="border-top:1px solid var(--line);padding:.5rem 0">
    <div class="row" style="justify-content:space-between;align-items:center;margin:0">
      <strong>${name}</strong>
      <span class=${`state ${state}`} data-testid="workflow-state">${state}</span>
    </div>
    <${ProgressBar} label=${`Ingestion progress of ${name}`} percent=${progress.percent} state=${state} detail=${detail} />
    ${source.errors.length > 0 && html`<ul class="errors" aria-label="Errors">${source.errors.map((e) => html`<li>${e.defaultMessage}</li>`)}</ul>`}
    ${source.warnings.length > 0 && html`<ul class="warnings" aria-label="Warnings">${source.warnings.map((e) => html`<li>${e.defaultMessage}</li>`)}</ul>`}
    ${metrics.length > 0 && html`<dl class="metrics">${metrics.map(([k, v]) => html`<div><dt>${k}</dt><dd>${Number(v).toLocaleString()}</dd></div>`)}</dl>`}
    ${hasDates && html`<button class="secondary" aria-expanded=${showDates} onClick=${() => setShowDates(!showDates)}>${showDates ? "Hide" : "Show"} effective dates</button>`}
    ${hasDates && showDates && html`<${EffectiveDates} sourceId=${source.id} />`}
  </article>`;
}

/** A Chart.js bar chart; its canvas is an image labelled with the figures it draws. */
function BarChart({ labels, datasets, label, stacked = true, horizontal = false, legend = true, height }) {
  const canvas = useRef();
  useEffect(() => {
    const [index, value] = horizontal ? ["y", "x"] : ["x", "y"];
    const chart = new Chart(canvas.current, {
      type: "bar",
      data: { labels, datasets },
      options: {
        indexAxis: index,
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        plugins: { legend: { display: legend } },
        scales: { [index]: { stacked }, [value]: { stacked, beginAtZero: true, ticks: { precision: 0 } } },
      },
    });
    return () => chart.destroy();
  }, [JSON.stringify(labels), JSON.stringify(datasets), horizontal, legend]);
  return html`<div class="chart" style=${height ? `height:${height}px` : ""}><canvas ref=${canvas} role="img" aria-label=${label}></canvas></div>`;
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
  // After a run, the result's scored entries first; else the first source's table.
  const initial = tables.find((t) => t.analysisResultId && t.type === "entries") ?? tables[0];
  const [tableId, setTableId] = useState(initial.id);
  const table = tables.find((t) => t.id === tableId) ?? initial;
  return html`<section class="card" aria-labelledby="dt-h"><h3 id="dt-h">Data tables</h3>
    <div class="row"><label>Table<select value=${table.id} onChange=${(e) => setTableId(e.target.value)} name="table">
      ${tables.map((t) => html`<option value=${t.id}>${t.logicalName ?? t.id} (${t.analysisResultId ? "result " : ""}${t.type}, ${Number(t.rowCount).toLocaleString()} rows)</option>`)}</select></label></div>
    <${TableBrowser} key=${table.id} table=${table} />
  </section>`;
}

/** Rows of a result's entries and transactions tables open their score explanation. */
const EXPLAINED = { entries: "ENTRY", transactions: "TRANSACTION" };

function TableBrowser({ table }) {
  const tableId = table.id;
  const level = table.analysisResultId ? EXPLAINED[table.type] : undefined;
  const [opened, setOpened] = useState();
  const opener = useRef();
  const closeExplanation = () => {
    setOpened(undefined);
    opener.current?.focus();
  };
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
    setOpened(undefined);
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
        <button class="secondary" disabled=${rows.first} onClick=${() => (setOpened(undefined), setApplied({ ...applied, page: applied.page - 1 }))}>Previous</button>
        <span aria-live="polite" data-testid="page-info">Page ${rows.number + 1} · ${rows.numberOfElements} rows</span>
        <button class="secondary" disabled=${rows.last} onClick=${() => (setOpened(undefined), setApplied({ ...applied, page: applied.page + 1 }))}>Next</button></div>
      <div class="table-wrap" tabindex="0" aria-label="Table rows"><table class="data"><thead><tr>${level && html`<th scope="col"><span class="visually-hidden">Score explanation</span></th>`}${cols.map((c) => html`<th scope="col" title=${c.originalName ?? ""}>${c.field}</th>`)}</tr></thead>
        <tbody>${rows.content.map(
          (r) => html`<tr data-rowid=${r.rowid} aria-selected=${level ? String(opened === r.rowid) : undefined}>
            ${level && html`<td><button class="secondary small" aria-label=${`Explain ${level === "ENTRY" ? "entry" : "transaction"} ${r.rowid}`} aria-expanded=${opened === r.rowid}
              onClick=${(e) => { opener.current = e.currentTarget; setOpened(opened === r.rowid ? undefined : r.rowid); }}>Explain</button></td>`}
            ${cols.map((c) => html`<td class=${c.type === "STRING" || c.type === "DATE" ? "" : "num"}>${formatCell(r[c.field], c.type)}</td>`)}</tr>`,
        )}</tbody></table></div>`}
    ${level && opened != null && html`<${Explanation} resultId=${table.analysisResultId} level=${level} rowid=${opened} onClose=${closeExplanation} />`}
  </div>`;
}

function formatCell(value, type) {
  if (value === undefined || value === null) return "";
  if (type === "MONEY_100") return (Number(value) / 100).toFixed(2);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

// ---------------------------------------------------------------- score explanation
const EXPLANATION = `level rowid txid risk riskLevel summary totalWeight riskGroup { id name category }
  controlPoints { name displayName kind level source rowid failed score weight contribution reason }`;

const score = (value) => (value == null ? "" : (Number(value) / 100).toFixed(2));

/** Why an entry (or a transaction) of a result scores what it scores: the engine's explanation. */
function Explanation({ resultId, level, rowid, onClose }) {
  const field = level === "TRANSACTION" ? "explainTransactionScore" : "explainEntryScore";
  const { data, error } = useQuery(`query($r: ID!, $row: ID!) { ${field}(analysisResultId: $r, rowid: $row) { ${EXPLANATION} } }`, { r: resultId, row: String(rowid) }, [resultId, level, rowid]);
  const heading = useRef();
  useEffect(() => heading.current?.focus(), [rowid, Boolean(data)]);
  const onKeyDown = (event) => event.key === "Escape" && onClose();
  const x = data?.[field];
  const noun = level === "TRANSACTION" ? "Transaction" : "Entry";
  // Control points that fired first, then by what they add to the risk.
  const points = x ? [...x.controlPoints].sort((a, b) => Number(b.failed) - Number(a.failed) || b.contribution - a.contribution || a.displayName.localeCompare(b.displayName)) : [];
  return html`<section class="card explanation" role="region" aria-labelledby="explain-h" onKeyDown=${onKeyDown} data-rowid=${rowid}>
    <div class="row" style="justify-content:space-between;align-items:center">
      <h4 id="explain-h" tabindex="-1" ref=${heading} style="margin:0">${noun} ${rowid}${x ? html` · risk <span data-testid="explain-risk">${score(x.risk)}</span> · <span class=${`level ${x.riskLevel}`} data-testid="explain-level">${x.riskLevel}</span>` : ""}</h4>
      <button class="secondary" onClick=${onClose}>Close explanation</button>
    </div>
    ${error && html`<p class="error-box" role="alert">${error.message}</p>`}
    ${!x && !error && html`<p class="muted">Explaining…</p>`}
    ${x &&
    html`<p data-testid="explain-summary">${x.summary}</p>
      <p class="muted">${x.txid ? `Transaction ${x.txid} · ` : ""}${x.riskGroup ? `Risk group ${x.riskGroup.name} (${x.riskGroup.category}) · ` : ""}total weight ${x.totalWeight} · scores and risk on a 0–100 scale</p>
      <div class="table-wrap" style="max-height:20rem"><table class="data" aria-label="Control points of the score">
        <thead><tr><th scope="col">Control point</th><th scope="col">Fired</th><th scope="col" class="num">Score</th><th scope="col" class="num">Weight</th><th scope="col" class="num">Adds</th><th scope="col">From</th><th scope="col">Reason</th></tr></thead>
        <tbody>${points.map(
          (p) => html`<tr data-control-point=${p.name} class=${p.failed ? "fired" : ""}><th scope="row">${p.displayName}</th><td>${p.failed ? "yes" : "no"}</td>
            <td class="num">${score(p.score)}</td><td class="num">${p.weight}</td><td class="num">${score(p.contribution)}</td>
            <td>${p.source === "OTHER_ENTRY" ? (p.rowid != null ? `entry ${p.rowid}` : "another entry") : p.source.toLowerCase()}</td><td class="reason">${p.reason}</td></tr>`,
        )}</tbody></table></div>`}
  </section>`;
}

// ---------------------------------------------------------------- results
const RESULT = `query Result($id: ID!) {
  analysisResult(id: $id) { id status interim creationDate completedDate
    summary { entries { total high medium low unscored } transactions { total high medium low unscored }
      controlPoints { name displayName level kind available skipped failedEntries failedTransactions } } }
}`;

const LEVELS = [
  ["high", "High", "#b3261e"],
  ["medium", "Medium", "#d9822b"],
  ["low", "Low", "#1c7c3a"],
  ["unscored", "Unscored", "#8b95a3"],
];

function Results({ analysis, results, resultId, onChoose, runs, onStarted }) {
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState();
  const running = results.find((r) => r.status === "RUNNING");
  const live = running && runs[running.id];
  const run = async () => {
    setStarting(true);
    setError(undefined);
    try {
      await gql(`mutation($id: ID!) { runAnalysis(id: $id) { id } }`, { id: analysis.id });
      onStarted();
    } catch (e) {
      setError(e.message);
    } finally {
      setStarting(false);
    }
  };
  const completed = results.filter((r) => r.status === "COMPLETED");
  const failed = results.find((r) => r.status === "FAILED" && (!completed[0] || r.creationDate > completed[0].creationDate));
  return html`<section class="card" aria-labelledby="res-h"><h3 id="res-h">Analysis results</h3>
    <div class="row" style="align-items:center">
      <button onClick=${run} disabled=${starting || Boolean(running)}>Run analysis</button>
      ${completed.length > 0 &&
      html`<label>Result<select name="result" value=${resultId} onChange=${(e) => onChoose(e.target.value)}>
        ${completed.map((r) => html`<option value=${r.id}>${new Date(r.completedDate ?? r.creationDate).toLocaleString()}${r.interim ? " (interim)" : ""}${r.id === analysis.latestAnalysisResultId ? " · latest" : ""}</option>`)}</select></label>`}
    </div>
    ${error && html`<p class="error-box" role="alert">${error}</p>`}
    ${running && html`<${ProgressBar} label="Analysis run progress" percent=${live?.percent ?? 0} state="RUNNING" detail=${live?.controlPoint ? `${live.controlPointsDone}/${live.controlPointsTotal} control points · ${live.controlPoint}` : live?.step ?? "starting"} />`}
    ${failed && html`<p class="error-box">The run of ${new Date(failed.creationDate).toLocaleString()} failed${failed.error ? `: ${failed.error}` : ""}.</p>`}
    ${completed.length === 0 && !running && html`<p class="muted">No completed run yet.</p>`}
    ${resultId && html`<${ResultSummary} key=${resultId} id=${resultId} />`}
  </section>`;
}

/** The chosen result's distribution of entries by risk level and by control point, from its summary. */
function ResultSummary({ id }) {
  const { data, error } = useQuery(RESULT, { id }, [id]);
  if (error) return html`<p class="error-box">${error.message}</p>`;
  if (!data) return html`<p class="muted">Loading the result…</p>`;
  const summary = data.analysisResult.summary;
  if (!summary) return html`<p class="muted">This result has no summary.</p>`;
  const { entries, transactions } = summary;
  const levelsLabel = `Entries by risk level: ${LEVELS.map(([k, name]) => `${name} ${entries[k]}`).join(", ")} of ${entries.total}`;
  const computed = summary.controlPoints.filter((c) => c.available);
  const fired = computed.filter((c) => Number(c.failedEntries) > 0).sort((x, y) => Number(y.failedEntries) - Number(x.failedEntries) || x.displayName.localeCompare(y.displayName));
  const skipped = summary.controlPoints.filter((c) => !c.available);
  return html`<div class="grid2 result-summary" data-result-id=${id}>
    <div>
      <h4>Entries by risk level</h4>
      <${BarChart} label=${levelsLabel} stacked=${false} legend=${false} labels=${LEVELS.map(([, name]) => name)}
        datasets=${[{ label: "Entries", data: LEVELS.map(([k]) => Number(entries[k])), backgroundColor: LEVELS.map(([, , color]) => color) }]} />
      <table class="data figures" aria-label="Entries and transactions by risk level">
        <thead><tr><th scope="col">Risk level</th><th scope="col" class="num">Entries</th><th scope="col" class="num">Transactions</th></tr></thead>
        <tbody>${LEVELS.map(([k, name]) => html`<tr data-level=${k}><th scope="row">${name}</th><td class="num">${entries[k]}</td><td class="num">${transactions?.[k] ?? ""}</td></tr>`)}
          <tr data-level="total"><th scope="row">Total</th><td class="num">${entries.total}</td><td class="num">${transactions?.total ?? ""}</td></tr></tbody>
      </table>
    </div>
    <div>
      <h4>Entries by control point</h4>
      ${fired.length === 0
        ? html`<p class="muted">No control point flagged an entry.</p>`
        : html`<${BarChart} label=${`Entries by control point: ${fired.map((c) => `${c.displayName} ${c.failedEntries}`).join(", ")}`} stacked=${false} legend=${false} horizontal=${true}
            height=${Math.max(160, 26 * fired.length + 40)} labels=${fired.map((c) => c.displayName)}
            datasets=${[{ label: "Entries flagged", data: fired.map((c) => Number(c.failedEntries)), backgroundColor: "#1f5fbf" }]} />`}
      <details><summary>Figures of all ${computed.length} computed control points${skipped.length ? ` (${skipped.length} not computed)` : ""}</summary>
        <div class="table-wrap" style="max-height:18rem"><table class="data figures" aria-label="Entries and transactions by control point">
          <thead><tr><th scope="col">Control point</th><th scope="col">Level</th><th scope="col" class="num">Entries</th><th scope="col" class="num">Transactions</th></tr></thead>
          <tbody>${computed.map((c) => html`<tr data-control-point=${c.name}><th scope="row">${c.displayName}</th><td>${c.level}</td><td class="num">${c.failedEntries}</td><td class="num">${c.failedTransactions}</td></tr>`)}</tbody>
        </table></div>
        ${skipped.length > 0 && html`<ul class="muted">${skipped.map((c) => html`<li>${c.displayName}: ${c.skipped ?? "not computed"}</li>`)}</ul>`}
      </details>
    </div>
  </div>`;
}

// ---------------------------------------------------------------- shell
function screen(route) {
  if (route.kind === "analysis") return html`<${Analysis} key=${route.id} id=${route.id} />`;
  if (route.kind === "engagement") return html`<${Engagement} key=${route.id} id=${route.id} />`;
  return html`<p class="muted">Choose an engagement or an analysis on the left.</p>`;
}

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
      <main id="content" tabindex="-1">${screen(route)}</main></div>`;
}

const root = document.getElementById("root");
root.textContent = "";
render(html`<${App} />`, root);
