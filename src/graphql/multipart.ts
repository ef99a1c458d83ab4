import type { IncomingMessage } from "node:http";
import { randomBytes } from "node:crypto";
import busboy from "busboy";
import { installFastMultipartSearch } from "../core/multipart-search.js";
import { PayloadTooLargeError, ValidationError } from "../core/errors.js";
import { parseJsonBody } from "../core/json-body.js";
import type { StagedUpload } from "../app-types.js";
import type { FileStorage } from "../storage/storage.js";
import { setPath, type GraphqlParams } from "./params.js";

const FIELD_LIMIT = 1024 * 1024;
// busboy's boundary search by Buffer.indexOf (src/core/multipart-search.ts).
installFastMultipartSearch();

export interface GraphqlMultipart {
  params: GraphqlParams;
  /** Staged file parts by id, for `takeUpload` (the same service path as REST uploads). */
  uploads: Map<string, StagedUpload>;
  /** Removes staged bytes no mutation took. */
  discard(): Promise<void>;
}

/**
 * A GraphQL multipart request (github.com/jaydenseric/graphql-multipart-request-spec): the
 * `operations` and `map` fields and the file parts (in any order), each file streamed into storage under `uploads/` as
 * it arrives (memory stays flat at any size) and put into the variables at its `map` paths as
 * the id of the staged bytes, which mutations take with `takeUpload` like REST upload routes do.
 */
export async function receiveGraphqlMultipart(req: IncomingMessage, storage: FileStorage, maxBytes: number): Promise<GraphqlMultipart> {
  const uploads = new Map<string, StagedUpload>();
  const byPart = new Map<string, StagedUpload>();
  const discard = async () => {
    await Promise.all([...uploads.values()].filter((u) => !u.taken).map((u) => storage.delete(u.key).catch(() => undefined)));
  };
  const fields: Record<string, string> = {};
  const writes: Array<Promise<unknown>> = [];
  let failure: Error | undefined;
  const tooLarge = () => new PayloadTooLargeError(`The file is larger than the limit of ${maxBytes} bytes; upload larger files as a chunked file`);
  // The fields and the multipart framing add little to the files: a declared length far above the limit is refused unread.
  if (Number(req.headers["content-length"] ?? 0) > maxBytes + 2 * FIELD_LIMIT + 64 * 1024) throw tooLarge();
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { fieldSize: FIELD_LIMIT } });
  } catch (error) {
    throw new ValidationError(`Malformed multipart request: ${(error as Error).message}`, { identifier: "body" });
  }
  const finished = new Promise<void>((resolve, reject) => {
    parser.on("field", (name, value, info) => {
      if (info.valueTruncated) failure ??= new PayloadTooLargeError(`Multipart field ${name} is larger than ${FIELD_LIMIT} bytes`, { identifier: name });
      fields[name] = value;
    });
    parser.on("file", (name, stream, info) => {
      const id = randomBytes(12).toString("hex");
      const upload: StagedUpload = { id, key: `uploads/${id}`, fileName: info.filename ?? "", contentType: info.mimeType, size: 0, taken: false };
      uploads.set(id, upload);
      writes.push(
        storage.write(upload.key, stream, { maxBytes, tooLarge }).then(
          ({ size }) => {
            upload.size = size;
            byPart.set(name, upload);
          },
          (error: Error) => {
            stream.resume();
            failure ??= error;
            // Stop reading: the rest of an oversized body is not wanted (the answer closes the connection).
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
    if (fields.operations === undefined) throw new ValidationError('Missing multipart form field "operations"', { identifier: "operations" });
    const operations = parseJsonBody(fields.operations, "operations");
    if (typeof operations !== "object" || operations === null || Array.isArray(operations)) throw new ValidationError("operations must be a JSON object (no batching)", { identifier: "operations" });
    const map = fields.map === undefined ? {} : parseJsonBody(fields.map, "map");
    if (typeof map !== "object" || map === null || Array.isArray(map)) throw new ValidationError("map must be a JSON object", { identifier: "map" });
    for (const [name, paths] of Object.entries(map as Record<string, unknown>)) {
      if (!Array.isArray(paths) || !paths.every((p) => typeof p === "string")) throw new ValidationError(`map.${name} must be a list of paths`, { identifier: `map.${name}` });
      const upload = byPart.get(name);
      if (!upload) throw new ValidationError(`File part ${name} named in map was not sent`, { identifier: `map.${name}` });
      for (const path of paths as string[]) setPath(operations as Record<string, unknown>, path, upload.id);
    }
    return { params: operations as GraphqlParams, uploads, discard };
  } catch (error) {
    await Promise.allSettled(writes);
    await discard();
    throw error;
  }
}
