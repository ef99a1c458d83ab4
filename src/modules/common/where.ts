import type { ArgBuilder, InputObjectRef } from "@pothos/core";
import { builder, type AppSchemaTypes } from "../../graphql/builder.js";
import { operatorsFor, type ColumnDef, type ColumnSet, type ColumnType } from "../../query-language/index.js";
import "./long.js";

type Scalar = "String" | "Int" | "Long" | "Float" | "Boolean" | "ID" | "JSON";

/**
 * The GraphQL scalar a column's values take in `where` (the query language still checks the
 * value itself: dates as YYYY-MM-DD, date-times with a zone, enumeration values). INT64 and
 * MONEY_100 beyond 2^53 need `filter` JSON, which keeps every digit.
 */
const SCALARS: Partial<Record<ColumnType, Scalar>> = {
  STRING: "String",
  DATE: "String",
  DATE_TIME: "String",
  BOOLEAN: "Boolean",
  INT16: "Int",
  INT32: "Int",
  INT64: "Long",
  MONEY_100: "Long",
  PERCENTAGE_FIXED_POINT: "Long",
  FLOAT32: "Float",
  FLOAT64: "Float",
  DECIMAL: "Float",
  OBJECTID: "ID",
  ARRAY_STRINGS: "String",
  ARRAY_INT64: "Long",
  BOOLEAN_FLAGS: "JSON",
};

const LIST_OPERATORS = new Set(["$in", "$nin"]);
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Operator inputs are shared by every column with the same scalar and operators (`StringWhereEqNeInNinIprefix`). */
const operatorInputs = new Map<string, InputObjectRef<AppSchemaTypes, Record<string, unknown>>>();

function operatorInput(column: ColumnDef) {
  const scalar = SCALARS[column.type];
  const operators = operatorsFor(column);
  if (!scalar || operators.length === 0) return undefined;
  const name = `${scalar}Where${operators.map((op) => capital(op.slice(1))).join("")}`;
  let ref = operatorInputs.get(name);
  if (!ref) {
    ref = builder.inputType(name, {
      description: `Query-language operators (spec 4.2) on a ${scalar} column: ${operators.join(", ")}`,
      fields: (t) =>
        Object.fromEntries(
          operators.map((op) => [
            op.slice(1),
            LIST_OPERATORS.has(op) ? t.field({ type: [scalar], required: false }) : t.field({ type: scalar, required: false }),
          ]),
        ) as never,
    }) as InputObjectRef<AppSchemaTypes, Record<string, unknown>>;
    operatorInputs.set(name, ref);
  }
  return ref;
}

const whereInputs = new Map<string, InputObjectRef<AppSchemaTypes, Record<string, unknown>>>();

/**
 * The typed `where` input of an entity (`OrganizationWhere`), generated from its query-language
 * columns: each filterable column with the operators its flags allow, plus `and`/`or`. GraphiQL
 * completes it and a value of the wrong type fails validation; resolvers compile it to the query
 * language (`whereToFilter`), beside `filter` JSON.
 */
export function whereInput(entity: string, columns: ColumnSet) {
  const name = `${entity}Where`;
  const existing = whereInputs.get(name);
  if (existing) return existing;
  const ref = builder.inputRef<Record<string, unknown>>(name);
  whereInputs.set(name, ref);
  ref.implement({
    description: `Typed filter over ${columns.subject} columns, compiled to the query language (combined with filter JSON when both are given)`,
    fields: (t) => {
      const fields: Record<string, unknown> = {
        and: t.field({ type: [ref], required: false, description: "Every one of these" }),
        or: t.field({ type: [ref], required: false, description: "At least one of these" }),
      };
      for (const column of columns.byField.values()) {
        const input = operatorInput(column);
        if (input) fields[column.field] = t.field({ type: input, required: false });
      }
      return fields as never;
    },
  });
  return ref;
}

/** The `where` argument of a list field over these columns. */
export const whereArg = (t: { arg: ArgBuilder<AppSchemaTypes> }, entity: string, columns: ColumnSet) => ({
  where: t.arg({ type: whereInput(entity, columns), required: false, description: "Typed filter (the query language's operators per column); with filter, both must hold" }),
});
