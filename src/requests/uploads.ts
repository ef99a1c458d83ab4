import { ValidationError } from "../core/errors.js";
import type { RequestContext, StagedUpload } from "../app-types.js";

/**
 * The staged file a mutation argument names. Only the REST upload route that received the bytes
 * can stage them (multipart is streamed to storage before the mutation runs), so a GraphQL caller
 * cannot point a mutation at somebody else's bytes. The caller moves the bytes to their final key.
 */
export function takeUpload(ctx: RequestContext, id: string, identifier: string, restPath: string): StagedUpload {
  const upload = [...(ctx.uploads?.values() ?? [])].find((u) => u.id === id && !u.taken);
  if (!upload) {
    throw new ValidationError(
      `${identifier} must be a file sent in this request: send the bytes as multipart/form-data to POST /api/v1${restPath}, or to /api/graphql as a GraphQL multipart request (the file part mapped to this variable)`,
      { identifier, values: [id] },
    );
  }
  upload.taken = true;
  return upload;
}
