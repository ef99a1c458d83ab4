import { builder } from "../../graphql/builder.js";
import { INTEGER, listOf, mapOf, shaped } from "../common/json-shape.js";
import { AsyncResult } from "../async-results/async-result.schema.js";
import { startMerge } from "./merge.js";

const MergeInput = builder.inputType("MergeFilesInput", {
  fields: (t) => ({
    engagementId: t.id({ required: true }),
    fileColumnMappings: t.field({ type: "JSON", required: true, ...shaped(mapOf(listOf(INTEGER))), description: "File id -> column indexes to take, e.g. {\"<id1>\": [0, 2], \"<id2>\": [1, 3]}; 2 or more files, equal counts" }),
    outputFileName: t.string({ required: true, description: "With extension, e.g. merged.csv" }),
    parentFileManagerEntityId: t.id(),
  }),
});

builder.mutationFields((t) => ({
  mergeFiles: t.field({
    type: AsyncResult,
    description: "Starts a DATA_TRANSFORMATION_JOB building one file from column selections of several files; the target is the new file",
    authScopes: { permission: "api.file-manager.write" },
    args: { input: t.arg({ type: MergeInput, required: true }) },
    resolve: (_root, { input }, ctx) => startMerge(ctx, input),
  }),
}));
