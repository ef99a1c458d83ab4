import type { ArgBuilder, InterfaceRef, ObjectRef } from "@pothos/core";
import { builder, type AppSchemaTypes } from "../../graphql/builder.js";
import type { Page } from "../../entity/paging.js";

const SortInfo = builder.objectRef<{ sorted: boolean }>("SortInfo").implement({
  fields: (t) => ({
    empty: t.boolean({ resolve: (s) => !s.sorted }),
    sorted: t.boolean({ resolve: (s) => s.sorted }),
    unsorted: t.boolean({ resolve: (s) => !s.sorted }),
  }),
});

const Pageable = builder.objectRef<Page<unknown>>("Pageable").implement({
  fields: (t) => ({
    offset: t.int({ resolve: (p) => p.page * p.size }),
    pageNumber: t.int({ resolve: (p) => p.page }),
    pageSize: t.int({ resolve: (p) => p.size }),
    paged: t.boolean({ resolve: () => true }),
    unpaged: t.boolean({ resolve: () => false }),
    sort: t.field({ type: SortInfo, resolve: (p) => ({ sorted: p.sort.length > 0 }) }),
  }),
});

type Ref<T> = ObjectRef<AppSchemaTypes, T, T>;
const pages = new Map<string, Ref<any>>();

/** The wire reference's page envelope (section 2) around a list of `item`. */
export function pageOf<T>(item: ObjectRef<AppSchemaTypes, T, any> | InterfaceRef<AppSchemaTypes, T, any>, name: string): Ref<Page<T>> {
  const existing = pages.get(name);
  if (existing) return existing as Ref<Page<T>>;
  const ref = builder.objectRef<Page<T>>(name).implement({
    fields: (t) => ({
      content: t.field({ type: [item], resolve: (p) => p.content }),
      number: t.int({ resolve: (p) => p.page }),
      size: t.int({ resolve: (p) => p.size }),
      numberOfElements: t.int({ resolve: (p) => p.content.length }),
      totalElements: t.int({ resolve: (p) => p.totalElements }),
      totalPages: t.int({ resolve: (p) => Math.ceil(p.totalElements / p.size) }),
      first: t.boolean({ resolve: (p) => p.page === 0 }),
      last: t.boolean({ resolve: (p) => (p.page + 1) * p.size >= p.totalElements }),
      pageNumber: t.int({ deprecationReason: "use number", resolve: (p) => p.page }),
      pageSize: t.int({ deprecationReason: "use size", resolve: (p) => p.size }),
      pageable: t.field({ type: Pageable, resolve: (p) => p as Page<unknown> }),
      sort: t.field({ type: SortInfo, resolve: (p) => ({ sorted: p.sort.length > 0 }) }),
    }),
  });
  pages.set(name, ref);
  return ref;
}

/**
 * Arguments of relation list fields holding entities (`Organization.engagements`): the same filter
 * and sort as the child's root list field, without paging (the list holds every match).
 */
export const relatedListArgs = (t: { arg: ArgBuilder<AppSchemaTypes> }) => ({
  filter: t.arg({ type: "JSON", required: false, description: "Query-language filter (spec 4.2) over the child's columns; {} or absent matches all" }),
  sort: t.arg.stringList({ required: false, description: "Sort orders like name,desc; id breaks ties" }),
  first: t.arg.int({ required: false, description: "At most this many per parent, 1 to 2000 (default: all; the document's cost counts an absent first as 20)" }),
});

/** Arguments of every list field: a query-language filter, paging and sorting. */
export const pageArgs = (t: { arg: ArgBuilder<AppSchemaTypes> }) => ({
  filter: t.arg({ type: "JSON", required: false, description: "Query-language filter (spec 4.2); {} or absent matches all" }),
  page: t.arg.int({ required: false, description: "Zero-based page index (default 0)" }),
  size: t.arg.int({ required: false, description: "Page size, 1 to 2000 (default 20)" }),
  sort: t.arg.stringList({ required: false, description: "Sort orders like name,desc; id breaks ties" }),
});
