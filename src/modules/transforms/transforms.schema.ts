import { builder } from "../../graphql/builder.js";
import { AsyncResult } from "../async-results/async-result.schema.js";
import { startMerge } from "./merge.js";
import { MergeFilesInput } from "./transforms.inputs.js";

builder.mutationFields((t) => ({
  mergeFiles: t.field({
    type: AsyncResult,
    description: "Starts a DATA_TRANSFORMATION_JOB building one file from column selections of several files; the target is the new file",
    authScopes: { permission: "api.file-manager.write" },
    args: { input: t.arg({ type: MergeFilesInput, required: true }) },
    resolve: (_root, { input }, ctx) => startMerge(ctx, input),
  }),
}));
