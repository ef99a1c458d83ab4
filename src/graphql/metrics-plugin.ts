import { Kind, type DocumentNode, type OperationDefinitionNode } from "graphql";
import type { Plugin } from "graphql-yoga";
import type { Metrics } from "../core/metrics.js";

/** The operation that runs and its first root field: a label bounded by the schema, unlike client-chosen operation names. */
function describe(document: DocumentNode, operationName?: string | null): { type: string; field: string } {
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && (!operationName || d.name?.value === operationName),
  );
  const first = operation?.selectionSet.selections.find((s) => s.kind === Kind.FIELD);
  return { type: operation?.operation ?? "unknown", field: first && first.kind === Kind.FIELD ? first.name.value : "unknown" };
}

/** Counts every executed operation (HTTP, REST routes in-process, graphql-ws) and times queries and mutations. */
export function useOperationMetrics(metrics: Metrics): Plugin {
  return {
    onExecute({ args }) {
      const started = performance.now();
      const { type, field } = describe(args.document, args.operationName);
      return {
        onExecuteDone({ result }) {
          const failed = !Array.isArray(result) && "errors" in result && (result.errors?.length ?? 0) > 0;
          metrics.graphqlOperations.inc({ type, operation: field, outcome: failed ? "error" : "ok" });
          metrics.graphqlDuration.observe({ type }, (performance.now() - started) / 1000);
        },
      };
    },
    onSubscribe({ args }) {
      const { type, field } = describe(args.document, args.operationName);
      metrics.graphqlOperations.inc({ type, operation: field, outcome: "subscribed" });
    },
  };
}
