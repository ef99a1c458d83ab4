import type { ArgBuilder, ArgumentRef, InputObjectRef, ObjectRef } from "@pothos/core";
import { builder, type AppSchemaTypes } from "../../graphql/builder.js";
import type { RequestContext } from "../../graphql/context.js";
import type { PermissionScope } from "../../auth/permissions.js";
import type { ColumnSet } from "../../query-language/index.js";
import type { Page, PageArgs } from "../../entity/index.js";
import { DeleteResult } from "./delete-result.js";
import { pageArgs, pageOf } from "./page.js";
import { whereArg } from "./where.js";

/** The TypeScript value a Pothos input ref hands its resolvers: services take this, not a copy of it. */
export type InputOf<Ref> = Ref extends InputObjectRef<AppSchemaTypes, infer T> ? T : never;

/** The `t` of an input type's `fields`, for helpers that build fields several input types share. */
export type InputFields = PothosSchemaTypes.InputFieldBuilder<AppSchemaTypes, "InputObject">;

type Awaitable<T> = T | Promise<T>;

/** A permission (or any one of several), or "authenticated": any valid token, the service narrowing what it sees. */
export type CrudScope = PermissionScope | "authenticated";

const authScopes = (scope: CrudScope) => (scope === "authenticated" ? { authenticated: true } : { permission: scope });

/**
 * One entity's standard root fields (the GraphQL side of `crudRoutes`, spec 4.1): `x(id)`,
 * `xs(filter, where, page, size, sort)` returning `XPage`, `createX(input)`, `updateX(id, input)` and
 * `deleteX(id)` returning `DeleteResult`. A field is defined when its service function is given.
 */
export interface CrudFields<Shape, Create, Update, Created, List extends PageArgs> {
  /** The entity's GraphQL type name (`Organization`); field names derive from it. */
  name: string;
  /** Root field of the list (default: `name` with a lower first letter, plus s). */
  plural?: string;
  type: ObjectRef<AppSchemaTypes, Shape, any>;
  /** Query-language columns: the list's typed `where` input (`<name>Where`). */
  columns: ColumnSet;
  /** Arguments of the list beyond filter, where, page, size and sort (the service's query gets them too). */
  listArgs?: (t: { arg: ArgBuilder<AppSchemaTypes> }) => Record<string, ArgumentRef<AppSchemaTypes, any>>;
  createInput?: InputObjectRef<AppSchemaTypes, Create>;
  /** What `createX` answers when it is not the entity itself (a created token shows its secret once). */
  createdType?: ObjectRef<AppSchemaTypes, Created, any>;
  updateInput?: InputObjectRef<AppSchemaTypes, Update>;
  permissions: { read: CrudScope; write?: CrudScope; delete?: CrudScope };
  service: {
    get?: (ctx: RequestContext, id: string) => Awaitable<Shape>;
    query?: (ctx: RequestContext, args: List) => Awaitable<Page<Shape>>;
    create?: (ctx: RequestContext, input: Create) => Awaitable<Created>;
    update?: (ctx: RequestContext, id: string, input: Update) => Awaitable<Shape>;
    delete?: (ctx: RequestContext, id: string) => Awaitable<{ id: string }>;
  };
  /** Field descriptions where the standard one needs a word more. */
  descriptions?: { get?: string; query?: string; create?: string; update?: string; delete?: string };
}

const lowerFirst = (text: string) => text[0].toLowerCase() + text.slice(1);

export function defineCrudFields<Shape, Create = never, Update = never, Created = Shape, List extends PageArgs = PageArgs>(spec: CrudFields<Shape, Create, Update, Created, List>): void {
  const { name, type, permissions, service } = spec;
  const single = lowerFirst(name);
  const plural = spec.plural ?? `${single}s`;
  const description = spec.descriptions ?? {};
  const need = (scope: CrudScope | undefined, what: string) => {
    if (!scope) throw new Error(`defineCrudFields(${name}): ${what} needs a permission`);
    return authScopes(scope);
  };
  // Generic field definitions defeat Pothos' inference; the types above are the contract.
  const untyped = (field: object) => field as never;

  if (service.get || service.query) {
    const { get, query } = service;
    builder.queryFields((t) => ({
      ...(get
        ? {
            [single]: t.field(
              untyped({
                type,
                description: description.get,
                authScopes: authScopes(permissions.read),
                args: { id: t.arg.id({ required: true }) },
                resolve: (_root: unknown, args: { id: string }, ctx: RequestContext) => get(ctx, args.id),
              }),
            ),
          }
        : {}),
      ...(query
        ? {
            [plural]: t.field(
              untyped({
                type: pageOf(type, `${name}Page`),
                description: description.query,
                authScopes: authScopes(permissions.read),
                args: { ...pageArgs(t), ...whereArg(t, name, spec.columns), ...spec.listArgs?.(t) },
                resolve: (_root: unknown, args: List, ctx: RequestContext) => query(ctx, args),
              }),
            ),
          }
        : {}),
    }));
  }

  const { create, update } = service;
  const remove = service.delete;
  if (!create && !update && !remove) return;
  builder.mutationFields((t) => ({
    ...(create
      ? {
          [`create${name}`]: t.field(
            untyped({
              type: spec.createdType ?? type,
              description: description.create,
              authScopes: need(permissions.write, "create"),
              args: { input: t.arg({ type: required(spec.createInput, name, "create"), required: true }) },
              resolve: (_root: unknown, args: { input: Create }, ctx: RequestContext) => create(ctx, args.input),
            }),
          ),
        }
      : {}),
    ...(update
      ? {
          [`update${name}`]: t.field(
            untyped({
              type,
              description: description.update,
              authScopes: need(permissions.write, "update"),
              args: { id: t.arg.id({ required: true }), input: t.arg({ type: required(spec.updateInput, name, "update"), required: true }) },
              resolve: (_root: unknown, args: { id: string; input: Update }, ctx: RequestContext) => update(ctx, args.id, args.input),
            }),
          ),
        }
      : {}),
    ...(remove
      ? {
          [`delete${name}`]: t.field(
            untyped({
              type: DeleteResult,
              description: description.delete,
              authScopes: need(permissions.delete, "delete"),
              args: { id: t.arg.id({ required: true }) },
              resolve: (_root: unknown, args: { id: string }, ctx: RequestContext) => remove(ctx, args.id),
            }),
          ),
        }
      : {}),
  }));
}

function required<T>(input: T | undefined, name: string, op: string): T {
  if (!input) throw new Error(`defineCrudFields(${name}): ${op} needs its input type`);
  return input;
}
