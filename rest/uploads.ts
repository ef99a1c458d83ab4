import type { Request } from "express";
import busboy from "busboy";
import { randomBytes } from "node:crypto";
import { PassThrough } from "node:stream";
import { PayloadTooLargeError, ValidationError } from "../src/core/errors.js";
import { parseJsonBody } from "../src/core/json-body.js";
import { installFastMultipartSearch } from "../src/core/multipart-search.js";
import type { StagedUpload, UploadObserver } from "../src/app-types.js";
import type { FileStorage } from "../src/storage/storage.js";
import type { BodyFileSpec, ObservedFile, UploadLimit, UploadSpec } from "./route-helpers.js";

const JSON_PART_LIMIT = 1024 * 1024;
// busboy's boundary search by Buffer.indexOf (src/core/multipart-search.ts).
installFastMultipartSearch();
const MULTIPART_OVERHEAD = 64 * 1024;

export interface ReceivedMultipart {
  /** Parsed JSON parts by part name. */
  json: Record<string, unknown>;
  /** Staged file parts by part name: bytes already in storage under `uploads/`. */
  files: Map<string, StagedUpload>;
  /** Removes staged bytes a mutation did not move to their final place. */
  discard(): Promise<void>;
}

function tooLarge(limit: number) {
  return new PayloadTooLargeError(`The file is larger than the limit of ${limit} bytes (${(limit / 2 ** 30).toFixed(2)} GiB); upload larger files as a chunked file`);
}

/** JSON parts still arriving as streams, parsed from what has arrived (those that do not parse yet are left out). */
function jsonSoFar(pending: Map<string, Buffer[]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, chunks] of pending) {
    try {
      out[name] = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      // incomplete: the limit falls back to the entity's own bound
    }
  }
  return out;
}

/**
 * Reads a multipart/form-data request for an upload route: JSON parts are parsed (they are small),
 * the file part is streamed straight into storage. On any failure nothing stays behind.
 */
export async function receiveMultipart(
  req: Request,
  spec: UploadSpec,
  storage: FileStorage,
  maxBytes: number,
  limitFor?: (json: Record<string, unknown>) => UploadLimit,
  /** Reads the file part as it is stored (the route's `upload.observe`). */
  observe?: (file: ObservedFile) => UploadObserver | null,
): Promise<ReceivedMultipart> {
  const contentType = req.headers["content-type"] ?? "";
  if (!/^multipart\/form-data/i.test(contentType)) {
    throw new ValidationError(`This endpoint expects multipart/form-data with the parts ${[...spec.jsonParts, spec.filePart].join(", ")}`, {
      identifier: "Content-Type",
      values: [contentType],
      suggestedValues: ["multipart/form-data"],
    });
  }
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > maxBytes + MULTIPART_OVERHEAD) throw tooLarge(maxBytes);
  // The entity's own bound, whatever JSON parts come first: the whole request can exceed it by no
  // more than the JSON parts and the multipart framing.
  const bound = limitFor?.({});
  if (bound && declared > bound.maxBytes + MULTIPART_OVERHEAD + JSON_PART_LIMIT * spec.jsonParts.length) throw bound.tooLarge();

  const json: Record<string, unknown> = {};
  const files = new Map<string, StagedUpload>();
  const staged: string[] = [];
  const observers: UploadObserver[] = [];
  const discard = async () => {
    await Promise.all([...staged.map((key) => storage.delete(key).catch(() => undefined)), ...observers.map((o) => o.discard().catch(() => undefined))]);
  };

  const expected = `expected the parts ${[...spec.jsonParts.map((name) => `${name} (JSON)`), `${spec.filePart} (the file)`].join(", ")}`;
  let parser: busboy.Busboy;
  try {
    // Clients send file names as raw UTF-8 (browsers, curl); busboy would read them as latin1.
    // A JSON part may come with a filename too (a browser's FormData with a Blob), so every part may be a "file".
    // A few parts beyond the expected ones are read so that a repeated or unknown part gets its own message.
    const parts = spec.jsonParts.length + 1;
    parser = busboy({ headers: req.headers, defParamCharset: "utf8", limits: { fieldSize: JSON_PART_LIMIT, files: parts + 2, fields: parts + 2, parts: parts + 4 } });
  } catch (error) {
    throw new ValidationError(`Malformed multipart request: ${(error as Error).message}`, { identifier: "Content-Type" });
  }

  const writes: Array<Promise<void>> = [];
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
  };
  const seen = new Set<string>();
  const unknownPart = (name: string) =>
    new ValidationError(`Unknown part ${name}; ${expected}`, { identifier: name, values: [name], suggestedValues: [...spec.jsonParts, spec.filePart] });
  /** Takes a JSON part's text (a field, or a part with a filename). */
  const takeJson = (name: string, text: string, truncated: boolean): void => {
    if (truncated) return fail(new PayloadTooLargeError(`Part ${name} is larger than ${JSON_PART_LIMIT} bytes (JSON parts are small objects)`, { identifier: name }));
    try {
      const value = parseJsonBody(text);
      if (value === null || typeof value !== "object" || Array.isArray(value)) {
        return fail(new ValidationError(`Part ${name} must be a JSON object; it is ${Array.isArray(value) ? "an array" : JSON.stringify(value)}`, { identifier: name, problemType: "INCORRECT_DATA_TYPE" }));
      }
      json[name] = value;
    } catch (error) {
      fail(new ValidationError(`Part ${name} is not valid JSON: ${(error as Error).message}`, { identifier: name, problemType: "INCORRECT_DATA_TYPE" }));
    }
  };
  const firstTime = (name: string): boolean => {
    if (!seen.has(name)) return seen.add(name), true;
    fail(new ValidationError(`Part ${name} was sent twice; ${expected}`, { identifier: name, values: [name] }));
    return false;
  };
  // JSON parts sent with a filename arrive as streams; their text so far, for the file part's limit.
  const pendingJson = new Map<string, Buffer[]>();

  const finished = new Promise<void>((resolve, reject) => {
    const unnamed = () => new ValidationError("A part has no name: each part needs Content-Disposition: form-data; name=\"...\"", { identifier: "body", suggestedValues: [...spec.jsonParts, spec.filePart] });
    parser.on("field", (name, value, info) => {
      if (!name) {
        fail(unnamed());
        return;
      }
      if (!spec.jsonParts.includes(name)) {
        fail(name === spec.filePart ? new ValidationError(`Part ${name} must be a file part (sent with a filename); ${expected}`, { identifier: name }) : unknownPart(name));
        return;
      }
      if (firstTime(name)) takeJson(name, value, info.valueTruncated);
    });
    parser.on("file", (name, stream, info) => {
      // A part cut off by the end of the body errors its stream ("Unexpected end of form"); the
      // parser reports the same, so a stream nobody reads must not throw it at the process.
      stream.on("error", () => undefined);
      if (!name) {
        stream.resume();
        fail(unnamed());
        return;
      }
      if (spec.jsonParts.includes(name)) {
        // A JSON part is known by its name, with or without a filename.
        if (!firstTime(name)) return void stream.resume();
        const chunks: Buffer[] = [];
        pendingJson.set(name, chunks);
        let size = 0;
        let truncated = false;
        stream.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > JSON_PART_LIMIT) truncated = true;
          else chunks.push(chunk);
        });
        writes.push(
          new Promise<void>((done) => {
            stream.on("end", () => {
              pendingJson.delete(name);
              takeJson(name, Buffer.concat(chunks).toString("utf8"), truncated);
              done();
            });
            stream.on("error", () => done());
          }),
        );
        return;
      }
      if (name !== spec.filePart) {
        stream.resume();
        fail(unknownPart(name));
        return;
      }
      if (!firstTime(name)) return void stream.resume();
      const id = randomBytes(12).toString("hex");
      const key = `uploads/${id}`;
      staged.push(key);
      // JSON parts sent before the file part may tighten the entity's bound (a chunk's offset).
      const entityLimit = limitFor?.({ ...json, ...jsonSoFar(pendingJson) });
      const limit = entityLimit && entityLimit.maxBytes < maxBytes ? { maxBytes: entityLimit.maxBytes, tooLarge: entityLimit.tooLarge } : { maxBytes, tooLarge };
      const observer = observe?.({ fileName: info.filename ?? "", contentType: info.mimeType, declaredBytes: declared > 0 ? declared : null }) ?? null;
      if (observer) observers.push(observer);
      writes.push(
        storage.write(key, observer ? observer.through(stream) : stream, limit).then(
          ({ size }) => {
            // The mutation awaits the observer's result itself: its own work (checks, the stored
            // file's move, the file's row) goes on beside the end of the reading.
            files.set(name, { id, key, fileName: info.filename ?? "", contentType: info.mimeType, size, taken: false, ...(observer ? { observer } : {}) });
          },
          (error: Error) => {
            stream.resume();
            fail(error);
            // Stop reading: the rest of an oversized body is not wanted.
            req.unpipe(parser);
            reject(error);
          },
        ),
      );
    });
    const tooMany = () => fail(new ValidationError(`Too many parts; ${expected}`, { identifier: "body", suggestedValues: [...spec.jsonParts, spec.filePart] }));
    parser.on("filesLimit", tooMany);
    parser.on("fieldsLimit", tooMany);
    parser.on("partsLimit", tooMany);
    parser.on("error", (error: Error) => reject(new ValidationError(`Malformed multipart request: ${error.message}`, { identifier: "body" })));
    parser.on("close", () => resolve());
    req.on("aborted", () => reject(new ValidationError("The upload was interrupted", { identifier: "body" })));
  });
  req.pipe(parser);

  try {
    await finished;
    await Promise.all(writes);
    if (failure) throw failure;
    for (const name of spec.jsonParts) {
      if (!(name in json)) throw new ValidationError(`Part ${name} (a JSON object) is missing; ${expected}`, { identifier: name });
    }
    if (!files.has(spec.filePart)) throw new ValidationError(`Part ${spec.filePart} (the file) is missing; ${expected}`, { identifier: spec.filePart });
  } catch (error) {
    await Promise.allSettled(writes);
    await discard();
    throw failure ?? error;
  }
  return {
    json,
    files,
    // Bytes a mutation kept were moved away from their staging key; deleting that key is then a no-op.
    discard,
  };
}

/**
 * Stages the whole request body of a `bodyFile` route in storage as it arrives, whatever its
 * content type, with the byte limit of JSON bodies (413 as for any body over it). The mutation
 * then reads the staged bytes as a stream instead of receiving a parsed body.
 */
export async function receiveBody(req: Request, spec: BodyFileSpec, storage: FileStorage, limit: number): Promise<ReceivedMultipart> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit) throw new PayloadTooLargeError(`Request body of ${declared} bytes exceeds the limit of ${limit} bytes`);
  const id = randomBytes(12).toString("hex");
  const key = `uploads/${id}`;
  // Through a PassThrough, so a failed write does not destroy the request: its 413 must still be sent.
  const body = new PassThrough();
  req.pipe(body);
  req.once("aborted", () => body.destroy(new ValidationError("The upload was interrupted", { identifier: "body" })));
  let size: number;
  try {
    ({ size } = await storage.write(key, body, { maxBytes: limit, tooLarge: () => new PayloadTooLargeError(`Request body exceeds the limit of ${limit} bytes`) }));
  } catch (error) {
    req.unpipe(body);
    throw error;
  }
  const file: StagedUpload = { id, key, fileName: "", contentType: req.headers["content-type"] ?? "", size, taken: false };
  return {
    json: {},
    files: new Map([[spec.name, file]]),
    discard: () => storage.delete(key).catch(() => undefined),
  };
}
