import {
  Kind,
  getNamedType,
  isInterfaceType,
  isObjectType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import type { Plugin } from "graphql-yoga";
import { ForbiddenError } from "../core/errors.js";
import { acceptedPermissions, hasAnyPermission, type Permission, type PermissionScope } from "../auth/permissions.js";
import type { RequestContext } from "./context.js";

interface Refusal {
  path: string;
  permissions: readonly Permission[];
}

function scopeOf(field: { extensions?: Record<string, unknown> | null }): PermissionScope | undefined {
  const options = field.extensions?.pothosOptions as { authScopes?: { permission?: PermissionScope } } | undefined;
  return options?.authScopes?.permission;
}

/** Fields under a mutation's root fields whose read permission the token lacks (their paths). */
function refusedFields(
  schema: GraphQLSchema,
  type: GraphQLNamedType | undefined,
  selectionSet: SelectionSetNode | undefined,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  granted: ReadonlySet<Permission> | undefined,
  path: string,
  found: Refusal[],
  visiting: Set<string>,
): void {
  if (!selectionSet) return;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      const field = type && (isObjectType(type) || isInterfaceType(type)) ? type.getFields()[selection.name.value] : undefined;
      if (!field) continue;
      const fieldPath = `${path}.${selection.alias?.value ?? selection.name.value}`;
      const scope = scopeOf(field);
      if (scope && !hasAnyPermission(granted, scope)) {
        found.push({ path: fieldPath, permissions: acceptedPermissions(scope) });
        continue;
      }
      refusedFields(schema, getNamedType(field.type), selection.selectionSet, fragments, granted, fieldPath, found, visiting);
    } else {
      const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? fragments.get(selection.name.value) : undefined;
      if (selection.kind === Kind.FRAGMENT_SPREAD && (!fragment || visiting.has(fragment.name.value))) continue;
      const condition = fragment ? fragment.typeCondition : selection.kind === Kind.INLINE_FRAGMENT ? selection.typeCondition : undefined;
      const inner = condition ? (schema.getType(condition.name.value) ?? type) : type;
      if (fragment) visiting.add(fragment.name.value);
      refusedFields(schema, inner, fragment ? fragment.selectionSet : selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : undefined, fragments, granted, path, found, visiting);
      if (fragment) visiting.delete(fragment.name.value);
    }
  }
}

function selectedOperation(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return operationName ? operations.find((o) => o.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
}

/**
 * A mutation whose selection asks for something the token may not read (a relation such as
 * `createEngagement { organization { name } }` without `api.organizations.read`) used to commit
 * the write and then answer 403 with `data: null`: a client believing it failed would retry and
 * create a duplicate. The selection is checked before anything runs: such a mutation is refused
 * whole (403 naming the fields), and nothing is written. The root fields' own permissions are
 * checked as before, by the schema.
 */
export function useMutationSelectionCheck(): Plugin {
  return {
    onExecute({ args }) {
      const document = args.document as DocumentNode;
      const operation = selectedOperation(document, args.operationName);
      if (operation?.operation !== "mutation") return;
      const schema = args.schema as GraphQLSchema;
      const root = schema.getMutationType() ?? undefined;
      const fragments = new Map(document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]));
      const ctx = args.contextValue as unknown as RequestContext;
      const refused: Refusal[] = [];
      for (const selection of operation.selectionSet.selections) {
        if (selection.kind !== Kind.FIELD || !root) continue;
        const field = root.getFields()[selection.name.value];
        // A root field the token may not call is the schema's own 403, and nothing runs for it.
        if (!field || (scopeOf(field) && !hasAnyPermission(ctx.auth?.permissions, scopeOf(field)!))) continue;
        refusedFields(schema, getNamedType(field.type), selection.selectionSet, fragments, ctx.auth?.permissions, selection.alias?.value ?? selection.name.value, refused, new Set());
      }
      if (refused.length === 0) return;
      const permissions = [...new Set(refused.flatMap((r) => r.permissions))];
      throw new ForbiddenError(
        `The selection asks for ${refused.map((r) => r.path).join(", ")}, which the token may not read (it lacks ${permissions.join(" or ")}); nothing was changed. Leave ${refused.length > 1 ? "them" : "it"} out of the selection.`,
        { identifier: refused[0].path, values: refused.map((r) => r.path), suggestedValues: permissions },
      );
    },
  };
}
