import { builder } from "../../graphql/builder.js";

/** What a download endpoint streams; GraphQL clients fetch the bytes from `url` (REST). */
export interface FileDownloadShape {
  id: string;
  fileName: string;
  size: number | bigint;
  contentType: string;
  url: string;
}

export const FileDownload = builder.objectRef<FileDownloadShape>("FileDownload").implement({
  description: "A file ready to download: GET the REST `url` (under /api/v1) for its bytes",
  fields: (t) => ({
    id: t.exposeID("id"),
    fileName: t.exposeString("fileName"),
    size: t.expose("size", { type: "Long" }),
    contentType: t.exposeString("contentType"),
    url: t.exposeString("url", { description: "Path of the REST download, relative to /api/v1" }),
  }),
});
