#!/usr/bin/env node
// fap: the command-line client of the ledger analytics API. A client of the public API only
// (/api/v1 for bytes and documented actions, /api/graphql and graphql-ws for state and progress).
//
// Exit codes (stable, for scripts): 0 success; 1 the job or workflow ended FAILED/ERROR;
// 2 usage or configuration error; 3 the API refused the request (4xx/5xx, message on stderr);
// 4 the server could not be reached; 130 interrupted.
import { existsSync, mkdirSync, openSync, readFileSync, readSync, closeSync, statSync, unlinkSync, writeFileSync, createWriteStream } from "node:fs";
import { homedir } from "node:os";
import { randomBytes } from "node:crypto";
import { basename, dirname, join, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { Readable } from "node:stream";
import { Command, InvalidArgumentError, Option } from "commander";
import cliProgress from "cli-progress";
import { createClient } from "graphql-ws";
import WebSocket from "ws";

const EXIT = { OK: 0, FAILED: 1, USAGE: 2, API: 3, UNREACHABLE: 4, INTERRUPTED: 130 };
const GL_SOURCE_TYPE = "4b8361d00000000000000000";
const TERMINAL = new Set(["COMPLETED", "FAILED", "CANCELLED"]);

class CliError extends Error {
  constructor(message, code) {
    super(message);
    this.code = code;
  }
}

// ---------------------------------------------------------------- configuration
/** Flags, then FAP_SERVER / FAP_TOKEN, then the config file (--config, FAP_CONFIG, ~/.config/fap/config.json). */
function settings(options) {
  const file = options.config ?? process.env.FAP_CONFIG ?? join(homedir(), ".config", "fap", "config.json");
  let fromFile = {};
  if (existsSync(file)) {
    try {
      fromFile = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      throw new CliError(`config file ${file} is not valid JSON: ${error.message}`, EXIT.USAGE);
    }
  } else if (options.config) throw new CliError(`config file ${file} not found`, EXIT.USAGE);
  const server = (options.server ?? process.env.FAP_SERVER ?? fromFile.server ?? "http://localhost:8080").replace(/\/+$/, "");
  const token = options.token ?? process.env.FAP_TOKEN ?? fromFile.token;
  if (!token) throw new CliError("no API token: set FAP_TOKEN, pass --token, or put {\"token\": ...} in ~/.config/fap/config.json", EXIT.USAGE);
  return { server, token };
}

// ---------------------------------------------------------------- API
function api(cfg) {
  const request = async (method, path, body, { raw = false } = {}) => {
    let response;
    try {
      response = await fetch(`${cfg.server}${path}`, {
        method,
        headers: { authorization: `Bearer ${cfg.token}`, ...(body?.multipart ? { "content-type": body.contentType } : body ? { "content-type": "application/json" } : {}) },
        body: body?.multipart ? body.body : body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new CliError(`cannot reach ${cfg.server}: ${error.cause?.message ?? error.message}`, EXIT.UNREACHABLE);
    }
    if (!response.ok) {
      const text = await response.text();
      let detail = text;
      try {
        const parsed = JSON.parse(text);
        detail = [parsed.title, ...(parsed.problems ?? []).map((p) => `${p.identifier ? `${p.identifier}: ` : ""}${p.reason}`)].filter(Boolean).join("; ");
      } catch {}
      throw new CliError(`${method} ${path}: ${response.status} ${detail}`, EXIT.API);
    }
    if (raw) return response;
    return response.status === 204 ? undefined : response.json();
  };
  const graphql = async (query, variables) => {
    const body = await request("POST", "/api/graphql", { query, variables });
    if (body.errors?.length) throw new CliError(body.errors.map((e) => e.message).join("; "), EXIT.API);
    return body.data;
  };
  let ws;
  const subscribe = (query, variables, onData) =>
    new Promise((resolvePromise, reject) => {
      ws ??= createClient({ url: cfg.server.replace(/^http/, "ws") + "/api/graphql", webSocketImpl: WebSocket, connectionParams: { Authorization: `Bearer ${cfg.token}` }, retryAttempts: 3 });
      let last;
      ws.subscribe(
        { query, variables },
        {
          next: ({ data, errors }) => {
            if (errors?.length) return reject(new CliError(errors.map((e) => e.message).join("; "), EXIT.API));
            last = data;
            onData(data);
          },
          error: (error) => reject(new CliError(`subscription failed: ${error?.message ?? error?.reason ?? "connection closed"}`, EXIT.UNREACHABLE)),
          complete: () => resolvePromise(last),
        },
      );
    });
  const close = () => ws?.dispose();
  return { request, graphql, subscribe, close };
}

function bars(quiet) {
  return new cliProgress.MultiBar(
    {
      format: " {name} |{bar}| {percentage}% {detail}",
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      noTTYOutput: true, // logs and CI get a line per update instead of nothing
      notTTYSchedule: 1000,
      stream: process.stderr,
    },
    cliProgress.Presets.shades_classic,
  );
}

const humanBytes = (n) => (n >= 1 << 30 ? `${(n / (1 << 30)).toFixed(2)} GiB` : n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`);

function parseSize(value) {
  const match = /^(\d+)(k|kb|m|mb|g|gb)?$/i.exec(value.trim());
  if (!match) throw new InvalidArgumentError("a size like 8MB, 512KB or 1048576");
  const unit = { k: 1024, kb: 1024, m: 1 << 20, mb: 1 << 20, g: 1 << 30, gb: 1 << 30 }[match[2]?.toLowerCase()] ?? 1;
  return Number(match[1]) * unit;
}

// ---------------------------------------------------------------- upload (chunked, resumable)
/** One chunked-file part as the wire has it: a JSON part (no filename, application/json) and the bytes. */
function partBody(json, bytes, fileName) {
  const boundary = `----fap${randomBytes(12).toString("hex")}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="chunkedFilePart"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(json)}\r\n`),
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="fileChunk"; filename="${fileName.replace(/["\r\n]/g, "_")}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { multipart: true, contentType: `multipart/form-data; boundary=${boundary}`, body };
}

/** Where an interrupted upload remembers its chunked file, beside nothing the user owns. */
function stateFile(path, size, mtimeMs) {
  const dir = join(process.env.FAP_STATE_DIR ?? join(homedir(), ".cache", "fap"), "uploads");
  mkdirSync(dir, { recursive: true });
  const key = Buffer.from(`${resolve(path)}|${size}|${Math.round(mtimeMs)}`).toString("base64url");
  return join(dir, `${key}.json`);
}

async function upload(client, path, options) {
  if (!existsSync(path)) throw new CliError(`${path}: no such file`, EXIT.USAGE);
  const { size, mtimeMs } = statSync(path);
  if (size === 0) throw new CliError(`${path} is empty`, EXIT.USAGE);
  const name = options.name ?? basename(path);
  const chunkSize = options.chunkSize;
  const state = stateFile(path, size, mtimeMs);
  let chunkedId;
  let received = new Set();
  if (existsSync(state)) {
    chunkedId = JSON.parse(readFileSync(state, "utf8")).chunkedFileId;
    try {
      const { chunkedFile } = await client.graphql(`query($id: ID!) { chunkedFile(id: $id) { id size chunkedFileParts { offset size } } }`, { id: chunkedId });
      received = new Set(chunkedFile.chunkedFileParts.map((p) => `${p.offset}:${p.size}`));
      if (!options.quiet) process.stderr.write(`resuming upload ${chunkedId}: ${received.size} part(s) already on the server\n`);
    } catch {
      chunkedId = undefined; // expired (7 days) or deleted: start over
    }
  }
  if (!chunkedId) {
    chunkedId = (await client.request("POST", "/api/v1/chunked-files", { name, size })).id;
    writeFileSync(state, JSON.stringify({ chunkedFileId: chunkedId, path: resolve(path), size }));
  }
  const multibar = options.quiet ? undefined : bars();
  const bar = multibar?.create(size, 0, { name: "upload  ", detail: `0 / ${humanBytes(size)}` });
  const fd = openSync(path, "r");
  let sentParts = 0;
  let done = 0;
  try {
    for (let offset = 0; offset < size; offset += chunkSize) {
      const length = Math.min(chunkSize, size - offset);
      if (!received.has(`${offset}:${length}`)) {
        if (options.stopAfterParts !== undefined && sentParts >= options.stopAfterParts) throw new CliError(`stopped after ${sentParts} part(s) (--stop-after-parts); run again to resume`, EXIT.INTERRUPTED);
        const buffer = Buffer.allocUnsafe(length);
        readSync(fd, buffer, 0, length, offset);
        await client.request("POST", `/api/v1/chunked-files/${chunkedId}/part`, partBody({ offset, size: length }, buffer, name));
        sentParts++;
      }
      done += length;
      bar?.update(done, { detail: `${humanBytes(done)} / ${humanBytes(size)}` });
    }
  } finally {
    closeSync(fd);
    multibar?.stop();
  }
  const file = await client.request("POST", "/api/v1/file-manager/create-from-chunked-file", {
    chunkedFileId: chunkedId,
    engagementId: options.engagement,
    ...(options.name ? { name: options.name } : {}),
  });
  unlinkSync(state);
  return file.id;
}

// ---------------------------------------------------------------- ingest: follow the workflow
async function follow(client, sourceId, quiet) {
  const multibar = quiet ? undefined : bars();
  const overall = multibar?.create(100, 0, { name: "workflow", detail: "" });
  const step = multibar?.create(100, 0, { name: "step    ", detail: "" });
  let state;
  try {
    await client.subscribe(
      `subscription($id: ID!) { analysisSourceProgress(analysisSourceId: $id) { workflowState percent stepPercent message } }`,
      { id: sourceId },
      ({ analysisSourceProgress: p }) => {
        if (p.workflowState !== state && step) step.update(0, { detail: p.workflowState });
        state = p.workflowState;
        overall?.update(p.percent, { detail: p.workflowState });
        step?.update(p.stepPercent ?? (TERMINAL.has(state) ? 100 : 0), { detail: p.workflowState });
        if (quiet) return;
      },
    );
  } finally {
    multibar?.stop();
  }
  const { analysisSource } = await client.graphql(`query($id: ID!) { analysisSource(id: $id) { id workflowState errors { code defaultMessage } warnings { code defaultMessage } } }`, { id: sourceId });
  return analysisSource;
}

async function followJob(client, asyncResultId, label, quiet) {
  const multibar = quiet ? undefined : bars();
  const bar = multibar?.create(100, 0, { name: label, detail: "" });
  let last;
  try {
    last = await client.subscribe(`subscription($id: ID!) { jobProgress(asyncResultId: $id) { status percent message error } }`, { id: asyncResultId }, ({ jobProgress: p }) => {
      bar?.update(p.status === "COMPLETE" ? 100 : (p.percent ?? 0), { detail: p.message ?? p.status });
    });
  } finally {
    multibar?.stop();
  }
  const { asyncResult } = await client.graphql(`query($id: ID!) { asyncResult(id: $id) { id status error entityId entityType } }`, { id: asyncResultId });
  return asyncResult ?? last?.jobProgress;
}

// ---------------------------------------------------------------- commands
const program = new Command();
program
  .name("fap")
  .description("Command-line client of the ledger analytics API (token and server from flags, FAP_TOKEN/FAP_SERVER, or ~/.config/fap/config.json)")
  .option("--server <url>", "server base URL (FAP_SERVER; default http://localhost:8080)")
  .option("--token <token>", "API token (FAP_TOKEN)")
  .option("--config <file>", "JSON config file with {server, token} (FAP_CONFIG)")
  .option("-q, --quiet", "no progress bars; only results on stdout")
  .option("--json", "print results as JSON")
  .showHelpAfterError()
  .exitOverride();

const withClient = (fn) => async (...args) => {
  const command = args[args.length - 1];
  const global = command.optsWithGlobals();
  const client = api(settings(global));
  try {
    await fn(client, global, ...args.slice(0, -2));
  } finally {
    client.close();
  }
};

const print = (options, value, text) => process.stdout.write(options.json ? `${JSON.stringify(value)}\n` : `${text}\n`);

program
  .command("upload")
  .description("upload a file into an engagement's file manager (chunked, resumable: run the same command again after an interruption); prints the file id")
  .argument("<file>", "local file")
  .requiredOption("-e, --engagement <id>", "engagement id")
  .option("--name <name>", "name in the file manager (default: the file's name)")
  .option("--chunk-size <size>", "part size", parseSize, 8 << 20)
  .addOption(new Option("--stop-after-parts <n>", "stop after sending n parts (tests of resuming)").argParser(Number).hideHelp())
  .action(
    withClient(async (client, options, file) => {
      const fileId = await upload(client, file, options);
      print(options, { fileId }, fileId);
    }),
  );

program
  .command("ingest")
  .description("create an analysis source from a file (a file manager id, or a local path to upload first) and follow its workflow to COMPLETED; prints the source id")
  .argument("<file>", "file manager file id, or a local file")
  .requiredOption("-a, --analysis <id>", "analysis id")
  .option("--period <id>", "analysis period id (default: the analysis's first)")
  .option("--source-type <id>", "analysis source type id", GL_SOURCE_TYPE)
  .option("--target <state>", "workflow state to run to", "COMPLETED")
  .option("--chunk-size <size>", "part size when uploading", parseSize, 8 << 20)
  .option("--no-wait", "start the workflow and return at once")
  .action(
    withClient(async (client, options, file) => {
      const analysis = await client.request("GET", `/api/v1/analyses/${encodeURIComponent(options.analysis)}`);
      const fileId = existsSync(file) ? await upload(client, file, { ...options, engagement: analysis.engagementId }) : file;
      const started = await client.request("POST", "/api/v1/analysis-sources", {
        engagementId: analysis.engagementId,
        analysisId: analysis.id,
        analysisPeriodId: options.period ?? analysis.analysisPeriods[0]?.id,
        analysisSourceTypeId: options.sourceType,
        fileManagerFileId: fileId,
        targetWorkflowState: options.target,
      });
      const sourceId = started.entityId;
      if (!options.wait) return print(options, { analysisSourceId: sourceId, asyncResultId: started.id }, sourceId);
      const source = await follow(client, sourceId, options.quiet);
      print(options, source, `${sourceId} ${source.workflowState}`);
      for (const error of source.errors) process.stderr.write(`error: ${error.code}: ${error.defaultMessage}\n`);
      for (const warning of source.warnings) process.stderr.write(`warning: ${warning.code}: ${warning.defaultMessage}\n`);
      if (source.workflowState === "FAILED" || source.workflowState === "CANCELLED") process.exitCode = EXIT.FAILED;
    }),
  );

program
  .command("status")
  .description("show an analysis source's workflow state, errors and warnings (exit 1 when FAILED)")
  .argument("<analysisSourceId>")
  .action(
    withClient(async (client, options, id) => {
      const { analysisSource: s } = await client.graphql(`query($id: ID!) { analysisSource(id: $id) { id workflowState targetWorkflowState errors { code defaultMessage } warnings { code defaultMessage } analysisId } }`, { id });
      print(options, s, [`${s.id} ${s.workflowState}${s.targetWorkflowState && s.targetWorkflowState !== s.workflowState ? ` -> ${s.targetWorkflowState}` : ""}`, ...s.errors.map((e) => `error: ${e.code}: ${e.defaultMessage}`), ...s.warnings.map((w) => `warning: ${w.code}: ${w.defaultMessage}`)].join("\n"));
      if (s.workflowState === "FAILED") process.exitCode = EXIT.FAILED;
    }),
  );

program
  .command("run")
  .description("run an analysis and follow the run to its end (exit 3 with the preflight errors while it is not ready)")
  .argument("<analysisId>")
  .option("--no-wait", "start the run and return at once")
  .action(
    withClient(async (client, options, id) => {
      const started = await client.request("POST", `/api/v1/analyses/${encodeURIComponent(id)}/run`, {});
      if (!options.wait) return print(options, started, started.id);
      const result = await followJob(client, started.id, "run     ", options.quiet);
      print(options, result, `${result.id} ${result.status}${result.error ? `: ${result.error}` : ""}`);
      if (result.status !== "COMPLETE") process.exitCode = EXIT.FAILED;
    }),
  );

program
  .command("export")
  .description("export a data table (optionally filtered with the query language) to a local CSV file")
  .argument("<dataTableId>")
  .requiredOption("-o, --output <file>", "local CSV file to write")
  .option("--query <json>", "query-language filter, e.g. '{\"account\": \"10100\"}'")
  .option("--fields <list>", "comma-separated fields")
  .action(
    withClient(async (client, options, id) => {
      let query;
      if (options.query) {
        try {
          query = JSON.parse(options.query);
        } catch (error) {
          throw new CliError(`--query is not valid JSON: ${error.message}`, EXIT.USAGE);
        }
      }
      const started = await client.request("POST", `/api/v1/data-tables/${encodeURIComponent(id)}/export`, { ...(query ? { query } : {}), ...(options.fields ? { fields: options.fields.split(",") } : {}) });
      const job = await followJob(client, started.id, "export  ", options.quiet);
      if (job.status !== "COMPLETE") throw new CliError(`export failed: ${job.error ?? job.status}`, EXIT.FAILED);
      const response = await client.request("GET", `/api/v1/file-results/${job.entityId}/export`, undefined, { raw: true });
      mkdirSync(dirname(resolve(options.output)), { recursive: true });
      await pipeline(Readable.fromWeb(response.body), createWriteStream(options.output));
      print(options, { output: options.output, bytes: statSync(options.output).size }, options.output);
    }),
  );

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error?.code === "commander.helpDisplayed" || error?.code === "commander.version") process.exit(EXIT.OK);
  if (error?.code?.startsWith?.("commander.")) process.exit(EXIT.USAGE);
  process.stderr.write(`fap: ${error.message}\n`);
  process.exit(error instanceof CliError ? error.code : EXIT.FAILED);
}
