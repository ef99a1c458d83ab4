import type { GraphQLError } from "graphql";
import type { ErrorCode, Problem } from "../src/core/errors.js";

export interface ErrorBody {
  type: string;
  title: string;
  status: number;
  instance: string;
  origin: string;
  entityId?: string;
  entityType?: string;
  problemCount: number;
  problems: Problem[];
}

const TYPE_BASE = "https://docs.ledger-analytics.dev/problems/";

interface ErrorExtensions {
  code?: ErrorCode;
  status?: number;
  problems?: Problem[];
  entityId?: string;
  entityType?: string;
  http?: { status?: number; headers?: Record<string, string> };
}

/** The wire reference's ActionableErrorResponse for a typed error's GraphQL extensions. */
export function errorBody(error: Pick<GraphQLError, "message" | "extensions">, request: { id: string; path: string }): { status: number; headers: Record<string, string>; body: ErrorBody } {
  const ext = (error.extensions ?? {}) as ErrorExtensions;
  const known = typeof ext.status === "number" && typeof ext.code === "string";
  const status = known ? ext.status! : 500;
  const problems = known ? ext.problems ?? [] : [{ problemType: "UNKNOWN" as const, severity: "ERROR" as const, reason: "Unexpected error" }];
  return {
    status,
    headers: known ? ext.http?.headers ?? {} : {},
    body: {
      type: TYPE_BASE + (known ? ext.code!.toLowerCase().replace(/_/g, "-") : "internal"),
      title: known ? error.message : "Unexpected error",
      status,
      instance: request.id,
      origin: request.path,
      ...(ext.entityId ? { entityId: ext.entityId } : {}),
      ...(ext.entityType ? { entityType: ext.entityType } : {}),
      problemCount: problems.length,
      problems,
    },
  };
}
