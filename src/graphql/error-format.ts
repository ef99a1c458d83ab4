import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from "graphql";

/** Errors GraphQL itself raises before any resolver runs, by Yoga's code: our code and status. */
const REQUEST_ERRORS: Record<string, { code: string; status: number }> = {
  GRAPHQL_PARSE_FAILED: { code: "VALIDATION", status: 400 },
  GRAPHQL_VALIDATION_FAILED: { code: "VALIDATION", status: 400 },
  BAD_USER_INPUT: { code: "VALIDATION", status: 400 },
  BAD_REQUEST: { code: "VALIDATION", status: 400 },
  REQUEST_ENTITY_TOO_LARGE: { code: "PAYLOAD_TOO_LARGE", status: 413 },
};

/**
 * Every GraphQL error carries `code`, `status` and `problems` in its extensions, as the typed
 * errors do: also those of a document that does not parse or validate, variables that do not
 * coerce (an unknown or read-only input field), or a body over the limit, which GraphQL and Yoga
 * raise with a bare message. The original code stays as `graphqlCode`.
 */
export function withProblemExtensions(error: GraphQLError): GraphQLError {
  const extensions = error.extensions ?? {};
  if (typeof extensions.status === "number" && Array.isArray(extensions.problems)) return error;
  const original = typeof extensions.code === "string" ? extensions.code : undefined;
  const mapped = (original && REQUEST_ERRORS[original]) || { code: "VALIDATION", status: 400 };
  const problemType = mapped.status === 413 ? "UNKNOWN" : "ILLEGAL_ARGUMENT";
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    path: error.path,
    extensions: {
      ...extensions,
      code: mapped.code,
      ...(original ? { graphqlCode: original } : {}),
      status: mapped.status,
      problems: [{ problemType, severity: "ERROR", reason: error.message }],
    },
  });
}

/** An error as clients receive it: the problem extensions, without the transport's `http` (status and headers) and Yoga's `unexpected` marker. */
export function formatError(error: GraphQLError): GraphQLFormattedError {
  const formatted = withProblemExtensions(error).toJSON();
  if (!formatted.extensions || !("http" in formatted.extensions || "unexpected" in formatted.extensions)) return formatted;
  const { http: _http, unexpected: _unexpected, ...extensions } = formatted.extensions;
  return Object.keys(extensions).length > 0 ? { ...formatted, extensions } : { message: formatted.message, locations: formatted.locations, path: formatted.path };
}

/** A GraphQLError raised as such, not wrapping another kind of error (Yoga's test for "unexpected"). */
function isOriginalGraphQLError(error: unknown): boolean {
  if (!(error instanceof GraphQLError)) return false;
  return error.originalError ? isOriginalGraphQLError(error.originalError) : true;
}

interface HttpExtension {
  status?: number;
  headers?: Record<string, string>;
  /** Set on errors the GraphQL-over-HTTP spec answers with 200 to `application/json` clients (a document that does not parse or validate). */
  spec?: boolean;
}

/**
 * The HTTP status and headers of a GraphQL response, by the rules Yoga applies
 * (getResponseInitByRespectingErrors): the highest `extensions.http.status` among the errors;
 * errors marked `spec` count only for `application/graphql-response+json` clients (the
 * GraphQL-over-HTTP spec answers `application/json` clients with 200); 500 for an unexpected
 * error without data; otherwise 200.
 */
export function responseInit(result: ExecutionResult, mediaType: string, headers: Record<string, string>): number {
  let status = 0;
  let unexpected = false;
  const applicationJson = mediaType === "application/json";
  const resultHttp = result.extensions?.http as HttpExtension | undefined;
  if (resultHttp?.headers) Object.assign(headers, resultHttp.headers);
  if (resultHttp?.status) status = resultHttp.status;
  if (!result.errors?.length) return status || 200;
  for (const error of result.errors) {
    const http = error.extensions?.http as HttpExtension | undefined;
    if (http) {
      if (http.headers) Object.assign(headers, http.headers);
      if (applicationJson && http.spec) continue;
      if (http.status && http.status > status) status = http.status;
    } else if (!isOriginalGraphQLError(error) || error.extensions?.unexpected) {
      unexpected = true;
    }
  }
  if (status) return status;
  return unexpected && !("data" in result) ? 500 : 200;
}

/** The JSON body of a GraphQL response: errors formatted with problem extensions, no transport internals. */
export function responseBody(result: ExecutionResult): string {
  if (!result.errors?.length && !result.extensions) return JSON.stringify(result);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(result)) {
    if (key === "errors") out.errors = result.errors!.map((error) => formatError(error instanceof GraphQLError ? error : new GraphQLError(String((error as Error).message ?? error))));
    else if (key === "extensions") {
      const { http: _http, ...extensions } = result.extensions!;
      if (Object.keys(extensions).length > 0) out.extensions = extensions;
    } else out[key] = result[key as keyof ExecutionResult];
  }
  return JSON.stringify(out);
}
