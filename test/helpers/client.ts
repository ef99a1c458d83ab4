import { assertDocumentedResponse } from "./openapi-validator.js";

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * Minimal HTTP client for the REST API, the way an outside caller uses it. Every response is
 * checked against the committed OpenAPI document (openapi-validator.ts): a test receiving a body
 * the document does not describe fails.
 */
export class RestClient {
  constructor(
    readonly baseUrl: string,
    readonly token?: string,
  ) {}

  withToken(token: string | undefined): RestClient {
    return new RestClient(this.baseUrl, token);
  }

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const init: RequestInit = {
      method,
      headers: {
        ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
    };
    const response = await fetch(`${this.baseUrl}/api/v1${path}`, init);
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON (downloads); keep the text
    }
    assertDocumentedResponse(method, path, response.status, response.headers.get("content-type"), parsed);
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  get<T = any>(path: string) {
    return this.request<T>("GET", path);
  }
  post<T = any>(path: string, body?: unknown) {
    return this.request<T>("POST", path, body ?? {});
  }
  put<T = any>(path: string, body?: unknown) {
    return this.request<T>("PUT", path, body ?? {});
  }
  delete<T = any>(path: string) {
    return this.request<T>("DELETE", path);
  }
}

/** GraphQL over HTTP against /api/graphql. */
export async function graphql<T = any>(baseUrl: string, token: string | undefined, query: string, variables?: Record<string, unknown>) {
  const response = await fetch(`${baseUrl}/api/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  // Typed loosely on purpose: tests assert on the shape.
  return { status: response.status, headers: response.headers, body: (await response.json()) as { data: T & Record<string, any>; errors: Array<{ message: string; path?: Array<string | number>; extensions: Record<string, any> }> } };
}
