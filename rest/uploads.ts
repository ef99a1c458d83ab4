import type { Request } from "express";
import busboy from "busboy";
import { randomBytes } from "node:crypto";
import { PassThrough } from "node:stream";
import { PayloadTooLargeError, ValidationError } from "../src/core/errors.js";
import { parseJsonBody } from "../src/core/json-body.js";
import type { StagedUpload, UploadObserver } from "../src/app-types.js";
import type { FileStorage } from "../src/storage/storage.js";
import type { BodyFileSpec, ObservedFile, UploadLimit, UploadSpec } from "./route-helpers.js";

const JSON_PART_LIMIT = 1024 * 1024;
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

  let parser: busboy.Busboy;
  try {
    // Clients send file names as raw UTF-8 (browsers, curl); busboy would read them as latin1.
    parser = busboy({ headers: req.headers, defParamCharset: "utf8", limits: { fieldSize: JSON_PART_LIMIT, files: 1, fields: spec.jsonParts.length + 4, parts: spec.jsonParts.length + 5 } });
  } catch (error) {
    throw new ValidationError(`Malformed multipart request: ${(error as Error).message}`, { identifier: "Content-Type" });
  }

  const writes: Array<Promise<void>> = [];
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
  };

  const finished = new Promise<void>((resolve, reject) => {
    const unnamed = () => new ValidationError("A part has no name: each part needs Content-Disposition: form-data; name=\"...\"", { identifier: "body", suggestedValues: [...spec.jsonParts, spec.filePart] });
    parser.on("field", (name, value, info) => {
      if (!name) {
        fail(unnamed());
        return;
      }
      if (!spec.jsonParts.includes(name)) {
        fail(name === spec.filePart
          ? new ValidationError(`Part ${name} must be a file part (with a filename)`, { identifier: name })
          : new ValidationError(`Unknown part ${name}; expected ${[...spec.jsonParts, spec.filePart].join(", ")}`, { identifier: name, values: [name], suggestedValues: [...spec.jsonParts, spec.filePart] }));
        return;
      }
      if (info.valueTruncated) {
        fail(new PayloadTooLargeError(`Part ${name} is larger than ${JSON_PART_LIMIT} bytes`, { identifier: name }));
        return;
      }
      try {
        json[name] = parseJsonBody(value);
      } catch (error) {
        fail(new ValidationError(`Part ${name} is not valid JSON: ${(error as Error).message}`, { identifier: name, problemType: "INCORRECT_DATA_TYPE" }));
      }
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
      if (name !== spec.filePart || files.has(name)) {
        stream.resume();
        fail(new ValidationError(name === spec.filePart ? `Part ${name} was sent twice` : `Unknown part ${name}; expected ${[...spec.jsonParts, spec.filePart].join(", ")}`, { identifier: name, values: [name] }));
        return;
      }
      const id = randomBytes(12).toString("hex");
      const key = `uploads/${id}`;
      staged.push(key);
      // JSON parts sent before the file part may tighten the entity's bound (a chunk's offset).
      const entityLimit = limitFor?.(json);
      const limit = entityLimit && entityLimit.maxBytes < maxBytes ? { maxBytes: entityLimit.maxBytes, tooLarge: entityLimit.tooLarge } : { maxBytes, tooLarge };
      const observer = observe?.({ fileName: info.filename ?? "", contentType: info.mimeType, declaredBytes: declared > 0 ? declared : null }) ?? null;
      if (observer) observers.push(observer);
      writes.push(
        storage.write(key, observer ? observer.through(stream) : stream, limit).then(
          async ({ size }) => {
            const observed = observer ? await observer.result() : undefined;
            files.set(name, { id, key, fileName: info.filename ?? "", contentType: info.mimeType, size, taken: false, ...(observer ? { observer, observed } : {}) });
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
    parser.on("error", (error: Error) => reject(new ValidationError(`Malformed multipart request: ${error.message}`, { identifier: "body" })));
    parser.on("close", () => resolve());
    req.on("aborted", () => reject(new ValidationError("The upload was interrupted", { identifier: "body" })));
  });
  req.pipe(parser);

  try {
    await finished;
    await Promise.all(writes);
    if (failure) throw failure;
    if (!files.has(spec.filePart)) throw new ValidationError(`Part ${spec.filePart} (the file) is missing`, { identifier: spec.filePart });
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
