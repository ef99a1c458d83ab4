import { PayloadTooLargeError } from "../../core/errors.js";
import type { RequestContext } from "../../graphql/context.js";
import { getChunkedFile, openChunkedFile } from "../chunked-files/chunked-file.service.js";
import { appendToAccountGrouping, getAccountGrouping, importAccountGrouping, type ImportType } from "./account-grouping.service.js";

/**
 * Grouping files are charts of accounts: a few thousand rows, a few MiB at most. The readers need
 * the whole workbook in memory (xlsx is a zip with its directory at the end), so a larger file is
 * refused before it is read rather than risking the process's memory.
 */
export const MAX_GROUPING_FILE_BYTES = 50 * 1024 * 1024;

/** The completed chunked file's bytes: 404 unknown or expired, 409 naming missing ranges, 413 too large. */
async function chunkedFileBytes(ctx: RequestContext, chunkedFileId: string): Promise<Buffer> {
  // The declared size decides, complete or not: no point in finishing an upload that will be refused.
  const declared = Number((await getChunkedFile(ctx, chunkedFileId)).size);
  if (declared > MAX_GROUPING_FILE_BYTES) {
    throw new PayloadTooLargeError(`Chunked file ${chunkedFileId} has ${declared} bytes; an account grouping file may have at most ${MAX_GROUPING_FILE_BYTES}`, {
      identifier: "chunkedFileId",
      values: [chunkedFileId],
    });
  }
  const file = await openChunkedFile(ctx, chunkedFileId);
  const chunks: Buffer[] = [];
  for await (const chunk of file.stream()) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** POST /account-groupings/import-from-chunked-file: synchronous, answers the new grouping (wire reference 5). */
export async function importAccountGroupingFromChunkedFile(ctx: RequestContext, input: { chunkedFileId: string; name: string; type: ImportType }) {
  const bytes = await chunkedFileBytes(ctx, input.chunkedFileId);
  return importAccountGrouping(ctx, { name: input.name, type: input.type }, bytes);
}

/** POST /account-groupings/{id}/append-from-chunked-file: synchronous, answers the grouping. */
export async function appendAccountGroupingFromChunkedFile(ctx: RequestContext, id: string, chunkedFileId: string) {
  await getAccountGrouping(ctx, id); // an unknown grouping is the first thing to report
  const bytes = await chunkedFileBytes(ctx, chunkedFileId);
  return appendToAccountGrouping(ctx, id, bytes);
}
