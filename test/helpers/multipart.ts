import { randomBytes } from "node:crypto";
import { assertDocumentedResponse } from "./openapi-validator.js";

export type Part =
  | { name: string; json: unknown }
  | { name: string; filename: string; contentType?: string; data: Uint8Array | string | AsyncIterable<Uint8Array> };

/**
 * A multipart/form-data body built the way the wire reference describes it: JSON parts without a
 * filename and `application/json`, file parts with a filename. File data may be an async iterable
 * so tests can stream large bodies without holding them.
 */
export function multipart(parts: Part[]): { contentType: string; body: AsyncIterable<Uint8Array> } {
  const boundary = `----fap${randomBytes(12).toString("hex")}`;
  async function* body() {
    for (const part of parts) {
      if ("json" in part) {
        yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(part.json)}\r\n`);
      } else {
        yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${part.filename}"\r\nContent-Type: ${part.contentType ?? "application/octet-stream"}\r\n\r\n`);
        // No zero-length chunk: fetch would send it as the chunked body's terminator (an empty file hangs).
        if (typeof part.data === "string" || part.data instanceof Uint8Array) {
          if (part.data.length > 0) yield Buffer.from(part.data);
        } else {
          for await (const chunk of part.data) if (chunk.length > 0) yield chunk;
        }
        yield Buffer.from("\r\n");
      }
    }
    yield Buffer.from(`--${boundary}--\r\n`);
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: body() };
}

/** POSTs a multipart body (streamed) to a REST path; the response parsed like RestClient's. */
export async function postMultipart(baseUrl: string, token: string | undefined, path: string, parts: Part[]) {
  const { contentType, body } = multipart(parts);
  const response = await fetch(`${baseUrl}/api/v1${path}`, {
    method: "POST",
    headers: { "content-type": contentType, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body as unknown as BodyInit,
    duplex: "half",
  } as RequestInit);
  const text = await response.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  assertDocumentedResponse("POST", path, response.status, response.headers.get("content-type"), parsed);
  return { status: response.status, headers: response.headers, body: parsed };
}

/** `size` bytes of a repeating, position-dependent pattern, generated in pieces. */
export async function* patternBytes(size: number, seed = 0, piece = 256 * 1024): AsyncIterable<Uint8Array> {
  for (let offset = 0; offset < size; offset += piece) {
    const length = Math.min(piece, size - offset);
    const chunk = Buffer.allocUnsafe(length);
    for (let i = 0; i < length; i++) chunk[i] = (offset + i + seed) % 251;
    yield chunk;
  }
}

/**
 * POSTs the platform's own FormData (Node's, as a browser builds it: a JSON part appended as
 * `new Blob([json], {type: "application/json"})` carries a filename); validated like RestClient's.
 */
export async function postFormData(baseUrl: string, token: string | undefined, path: string, form: FormData) {
  const response = await fetch(`${baseUrl}/api/v1${path}`, { method: "POST", headers: token ? { authorization: `Bearer ${token}` } : {}, body: form });
  const text = await response.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  assertDocumentedResponse("POST", path, response.status, response.headers.get("content-type"), parsed);
  return { status: response.status, headers: response.headers, body: parsed };
}
