import { queryArgs, route, type RouteDef } from "../../../rest/route-helpers.js";
import { chunkedPartByteLimit } from "./chunked-file.service.js";

const tag = "Chunked files";
const id = { from: "path", name: "chunkedFileId" } as const;

export const chunkedFileRoutes: RouteDef[] = [
  route({ method: "POST", path: "/chunked-files", operation: "mutation", field: "createChunkedFile", args: { input: { from: "body" } }, summary: "Declare a chunked file (name with extension, total size in bytes)", tag }),
  route({ method: "GET", path: "/chunked-files/{chunkedFileId}", operation: "query", field: "chunkedFile", args: { id }, summary: "Read a chunked file and the parts received (only the token that declared it)", tag }),
  route({ method: "DELETE", path: "/chunked-files/{chunkedFileId}", operation: "mutation", field: "deleteChunkedFile", args: { id }, status: 204, summary: "Delete a chunked file and the parts received", tag }),
  route({ method: "POST", path: "/chunked-files/query", operation: "query", field: "chunkedFiles", args: queryArgs(), summary: "Query the calling token's chunked files with the filter language", tag }),
  route({
    method: "POST",
    path: "/chunked-files/{chunkedFileId}/part",
    operation: "mutation",
    field: "uploadChunkedFilePart",
    args: { id, part: { from: "part", name: "chunkedFilePart" }, chunk: { from: "file", name: "fileChunk" } },
    upload: {
      jsonParts: ["chunkedFilePart"],
      filePart: "fileChunk",
      // Stage no more than the chunked file can still take (413 past it): bytes beyond would be refused anyway.
      limit: async (ctx, params) => {
        const limitFor = await chunkedPartByteLimit(ctx, params.chunkedFileId);
        return (json) => limitFor(json.chunkedFilePart);
      },
    },
    summary: "Upload one part (any order; resending an offset replaces it): parts chunkedFilePart {offset, size} and fileChunk",
    tag,
  }),
];
