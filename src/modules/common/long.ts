import { GraphQLError } from "graphql";
import { builder } from "../../graphql/builder.js";

/**
 * Whole numbers beyond GraphQL's 32-bit Int: byte sizes and offsets of multi-GiB files. JSON
 * numbers, exact up to 2^53 - 1 (8 PiB as bytes); stored as PostgreSQL bigint.
 */
builder.scalarType("Long", {
  description: "Integer up to 2^53 - 1 (byte sizes, offsets)",
  serialize: (value) => Number(value),
  parseValue: (value) => {
    if (typeof value !== "number" || !Number.isSafeInteger(value)) throw new GraphQLError(`expects a whole number up to 2^53 - 1; got ${JSON.stringify(value)}`);
    return value;
  },
});
