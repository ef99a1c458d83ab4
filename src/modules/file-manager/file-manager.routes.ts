import { queryArgs, route, type RouteDef } from "../../../rest/route-helpers.js";
import type { FileDownloadShape } from "../file-results/file-download.js";
import { receiveFile } from "../file-infos/file-arrival.js";
import { fileObjectKey } from "./file-manager.service.js";
import { splitFileName } from "./file-names.js";

const tag = "File manager";
const id = { from: "path", name: "fileManagerEntityId" } as const;
const item = "/file-manager/{fileManagerEntityId}";

export const fileManagerRoutes: RouteDef[] = [
  route({ method: "POST", path: "/file-manager", operation: "mutation", field: "createFileManagerDirectory", args: { input: { from: "body" } }, summary: "Create a directory", tag }),
  route({ method: "GET", path: item, operation: "query", field: "fileManagerEntity", args: { id }, summary: "Read a file or directory", tag }),
  route({ method: "PUT", path: item, operation: "mutation", field: "updateFileManagerEntity", args: { id, input: { from: "body" } }, summary: "Rename or move a file or directory (send the latest version)", tag }),
  route({ method: "DELETE", path: item, operation: "mutation", field: "deleteFileManagerEntity", args: { id }, status: 204, summary: "Delete a file, or a directory with its contents", tag }),
  route({ method: "POST", path: "/file-manager/query", operation: "query", field: "fileManagerEntities", args: queryArgs(), summary: "Query files and directories (mixed DIRECTORY/FILE)", tag }),
  route({
    method: "POST",
    path: "/file-manager/import",
    operation: "mutation",
    field: "importFileManagerFile",
    args: { input: { from: "part", name: "fileManagerFile" }, file: { from: "file", name: "file" } },
    upload: {
      jsonParts: ["fileManagerFile"],
      filePart: "file",
      // The file info (and the staging table of its first analysis source) is made as the bytes arrive.
      observe: (ctx, file) => receiveFile(ctx.app, { name: file.fileName, extension: splitFileName(file.fileName).extension, size: file.declaredBytes }),
    },
    summary: "Upload a file (multipart: fileManagerFile JSON part and file part; up to 8 GiB)",
    tag,
  }),
  route({
    method: "GET",
    path: `${item}/export`,
    operation: "query",
    field: "fileManagerFileDownload",
    args: { id },
    summary: "Download a file's bytes",
    tag,
    download: { storageKey: (d: FileDownloadShape) => fileObjectKey(d.id), fileName: (d: FileDownloadShape) => d.fileName },
  }),
  route({ method: "POST", path: "/file-manager/create-from-chunked-file", operation: "mutation", field: "createFileFromChunkedFile", args: { input: { from: "body" } }, summary: "Create a file from a completely uploaded chunked file", tag }),
  // The two deprecated spellings of create-from-chunked-file.
  ...["import-from-chunked-file", "import-from-chunked"].map((action) =>
    route({
      method: "POST",
      path: `/file-manager/${action}/{chunkedFileId}`,
      operation: "mutation",
      field: "importFileFromChunkedFile",
      args: { input: { from: "body" } },
      summary: "Create a file from a chunked file (deprecated: use create-from-chunked-file)",
      tag,
      deprecated: true,
    }),
  ),
];
