// Importing the families registers their types and fields on the builder; this file only builds the schema.
import { builder } from "../src/graphql/builder.js";
import "../src/modules/index.js";

export const schema = builder.toSchema({ sortSchema: true });
