import { ValidationError } from "../core/errors.js";
import { orderByClause, parseSort, type ColumnSet, type SortOrder } from "../query-language/index.js";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 2000;

export interface PageRequest {
  page: number;
  size: number;
  sort: SortOrder[];
}

export interface Page<T> {
  content: T[];
  page: number;
  size: number;
  totalElements: number;
  sort: SortOrder[];
}

export function pageRequest(args: { page?: number | null; size?: number | null; sort?: readonly string[] | null }, columns: ColumnSet): PageRequest {
  const page = args.page ?? 0;
  const size = args.size ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(page) || page < 0) throw new ValidationError("page must be an integer of at least 0", { identifier: "page", values: [page] });
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
    throw new ValidationError(`size must be an integer from 1 to ${MAX_PAGE_SIZE}`, { identifier: "size", values: [size] });
  }
  return { page, size, sort: parseSort(args.sort ?? undefined, columns) };
}

export function orderBy(request: PageRequest, columns: ColumnSet, alias?: string): string {
  return orderByClause(request.sort, columns, alias);
}

/** Puts hydrated rows back in the order the page query returned their ids. */
export function pageFromIds<T extends { id: string }>(ids: string[], rows: T[], total: number, request: PageRequest): Page<T> {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return {
    content: ids.map((id) => byId.get(id)).filter((row): row is T => row !== undefined),
    page: request.page,
    size: request.size,
    totalElements: total,
    sort: request.sort,
  };
}
