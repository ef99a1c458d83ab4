import { builder } from "../../graphql/builder.js";
import type { InputOf } from "../common/crud-fields.js";
import { INTEGER, listOf, mapOf, shaped } from "../common/json-shape.js";

export const MergeFilesInput = builder.inputType("MergeFilesInput", {
  fields: (t) => ({
    engagementId: t.id({ required: true }),
    fileColumnMappings: t.field({ type: "JSON", required: true, ...shaped(mapOf(listOf(INTEGER))), description: "File id -> column indexes to take, e.g. {\"<id1>\": [0, 2], \"<id2>\": [1, 3]}; 2 or more files, equal counts" }),
    outputFileName: t.string({ required: true, description: "With extension, e.g. merged.csv" }),
    parentFileManagerEntityId: t.id(),
  }),
});
export type MergeFilesInput = InputOf<typeof MergeFilesInput>;
