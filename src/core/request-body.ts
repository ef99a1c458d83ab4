import type { IncomingMessage } from "node:http";
import { PayloadTooLargeError } from "./errors.js";
import { decodeUtf8 } from "./json-body.js";

/**
 * The whole body of a request as text, refused with 413 past `limit` bytes: at once when the
 * declared length is larger, else as soon as the bytes read pass it (reading stops there; the
 * caller answers with `Connection: close`, since the rest of the body is never read).
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > limit) return Promise.reject(new PayloadTooLargeError(`Request body of ${declared} bytes exceeds the limit of ${limit} bytes`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done();
        req.pause();
        reject(new PayloadTooLargeError(`Request body exceeds the limit of ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      // Strict UTF-8: invalid bytes are the caller's mistake (400), not U+FFFD in stored text.
      try {
        resolve(decodeUtf8(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onClose = () => {
      done();
      reject(Object.assign(new Error("The client closed the connection before sending the whole body"), { code: "ECONNRESET" }));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}
