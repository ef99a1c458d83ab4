import { GraphQLError } from "graphql";

/** The wire reference's `problemType` values (section 3). */
export const PROBLEM_TYPES = [
  "UNKNOWN",
  "ILLEGAL_ARGUMENT",
  "CANNOT_DELETE",
  "GREATER_VALUE_REQUIRED",
  "LESS_VALUE_REQUIRED",
  "NON_UNIQUE_VALUE",
  "USER_EMAIL_ALREADY_EXISTS",
  "INCORRECT_DATA_TYPE",
  "RATIO_CONVERSION_FAILED",
  "RISK_SCORE_FILTER_CONVERSION_FAILED",
  "FILTER_CONVERSION_FAILED",
  "POPULATION_CONVERSION_FAILED",
  "INSUFFICIENT_PERMISSION",
  "ACCOUNT_GROUPING_NODES_CONTAIN_ERRORS",
  "ACCOUNT_GROUPING_IN_USE_BY_LIBRARY",
  "INVALID_ACCOUNT_GROUPING_FILE",
  "DELIVERY_FAILURE",
  "INVALID_STATE",
] as const;

export type ProblemType = (typeof PROBLEM_TYPES)[number];

/** The wire reference's problem `severity` values (section 3). */
export const SEVERITIES = ["WARNING", "ERROR"] as const;

export interface Problem {
  problemType: ProblemType;
  severity: (typeof SEVERITIES)[number];
  identifier?: string;
  reason: string;
  values?: string[];
  suggestedValues?: string[];
  entityId?: string;
  entityType?: string;
  problemCount?: number;
}

export type ErrorCode =
  | "VALIDATION"
  | "UNAUTHENTICATED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "LOCKED"
  | "RATE_LIMITED"
  | "INTERNAL";

export interface ProblemInit {
  identifier?: string;
  values?: unknown[];
  suggestedValues?: string[];
  problemType?: ProblemType;
  entityId?: string;
  entityType?: string;
}

/**
 * Base of every error the API reports on purpose. It is a GraphQLError so Yoga's masking lets it
 * through with its `extensions`; the REST layer turns the same extensions into the error body.
 */
export abstract class AppError extends GraphQLError {
  readonly problems: Problem[];
  readonly entityId?: string;
  readonly entityType?: string;
  /** Response headers the error implies (Allow, Retry-After, X-User-Hour-Limit-Remaining). */
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    message: string,
    problems: Problem[] = [],
    entity?: { entityId?: string; entityType?: string },
  ) {
    const headers: Record<string, string> = {};
    super(message, {
      extensions: {
        code,
        status,
        problems,
        ...(entity?.entityId ? { entityId: entity.entityId } : {}),
        ...(entity?.entityType ? { entityType: entityTypeCode(entity.entityType) } : {}),
        http: { status, headers },
      },
    });
    this.headers = headers;
    this.problems = problems;
    this.entityId = entity?.entityId;
    this.entityType = entity?.entityType && entityTypeCode(entity.entityType);
  }
}

/**
 * Error bodies name entity types as the wire names them elsewhere (async results: ANALYSIS_SOURCE,
 * FILE_MANAGER_FILE); services may pass their model names (AnalysisSource), which read better in
 * messages.
 */
export function entityTypeCode(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

function problem(defaultType: ProblemType, reason: string, init: ProblemInit = {}): Problem {
  return {
    problemType: init.problemType ?? defaultType,
    severity: "ERROR",
    reason,
    ...(init.identifier !== undefined ? { identifier: init.identifier } : {}),
    ...(init.values ? { values: init.values.map(stringify) } : {}),
    ...(init.suggestedValues ? { suggestedValues: init.suggestedValues } : {}),
    ...(init.entityId ? { entityId: init.entityId } : {}),
    ...(init.entityType ? { entityType: entityTypeCode(init.entityType) } : {}),
  };
}

function stringify(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
}

export class ValidationError extends AppError {
  constructor(reason: string, init: ProblemInit = {}) {
    super("VALIDATION", 400, reason, [problem("ILLEGAL_ARGUMENT", reason, init)], init);
  }
  /** Several independent problems found in one body. */
  static of(problems: Problem[]): ValidationError {
    const error = new ValidationError(problems[0]?.reason ?? "Invalid request");
    error.problems.splice(0, error.problems.length, ...problems);
    return error;
  }
}

export class UnauthenticatedError extends AppError {
  constructor(reason = "A valid bearer token is required") {
    super("UNAUTHENTICATED", 401, reason, [problem("UNKNOWN", reason)]);
  }
}

export class ForbiddenError extends AppError {
  constructor(reason: string, init: ProblemInit = {}) {
    super("FORBIDDEN", 403, reason, [problem("INSUFFICIENT_PERMISSION", reason, init)], init);
  }
}

export class NotFoundError extends AppError {
  constructor(entityType: string, entityId?: string) {
    const reason = entityId ? `${entityType} ${entityId} was not found` : `${entityType} was not found`;
    super("NOT_FOUND", 404, reason, [problem("UNKNOWN", reason, { entityId, entityType })], { entityId, entityType });
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(method: string, path: string, allowed: string[]) {
    const reason = `${method} is not supported on ${path}; use ${allowed.join(", ")}`;
    super("METHOD_NOT_ALLOWED", 405, reason, [problem("UNKNOWN", reason)]);
    this.headers.Allow = allowed.join(", ");
  }
}

export class ConflictError extends AppError {
  constructor(reason: string, init: ProblemInit = {}) {
    super("CONFLICT", 409, reason, [problem("INVALID_STATE", reason, init)], init);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(reason: string, init: ProblemInit = {}) {
    super("PAYLOAD_TOO_LARGE", 413, reason, [problem("ILLEGAL_ARGUMENT", reason, init)], init);
  }
}

export class LockedError extends AppError {
  constructor(reason: string, init: ProblemInit = {}) {
    super("LOCKED", 423, reason, [problem("INVALID_STATE", reason, init)], init);
  }
}

export class RateLimitedError extends AppError {
  /**
   * `resetSeconds` is sent as X-User-Hour-Limit-Remaining for the per-user limit only. GraphQL
   * clients read errors, not headers (and one response may carry several errors), so the same
   * numbers are also in the error's extensions: `userHourLimitRemaining`, `retryAfterSeconds`.
   */
  constructor(reason: string, resetSeconds?: number, retryAfterSeconds?: number) {
    super("RATE_LIMITED", 429, reason, [problem("UNKNOWN", reason)]);
    const extensions = this.extensions as Record<string, unknown>;
    if (resetSeconds !== undefined) {
      this.headers["X-User-Hour-Limit-Remaining"] = String(resetSeconds);
      extensions.userHourLimitRemaining = resetSeconds;
    }
    if (retryAfterSeconds !== undefined) {
      this.headers["Retry-After"] = String(retryAfterSeconds);
      extensions.retryAfterSeconds = retryAfterSeconds;
    }
  }
}

export class InternalError extends AppError {
  constructor() {
    super("INTERNAL", 500, "Unexpected error", [problem("UNKNOWN", "Unexpected error")]);
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}
