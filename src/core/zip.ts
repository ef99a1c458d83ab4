import type { Readable } from "node:stream";
import { createInflateRaw } from "node:zlib";
import type yauzl from "yauzl";

/** Random-access zip reading (the central directory first), entry contents streamed. */
export interface ZipArchive {
  entries: yauzl.Entry[];
  open(entry: yauzl.Entry): Promise<Readable>;
  close(): void;
}

export async function openZip(path: string): Promise<ZipArchive> {
  // Imported with the first archive: GDPdU unpacking is rare, the library is not needed before.
  const { default: yauzl } = await import("yauzl");
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false, strictFileNames: false }, (error, zip) => {
      if (error || !zip) return reject(error ?? new Error("cannot open the archive"));
      const entries: yauzl.Entry[] = [];
      zip.on("entry", (entry: yauzl.Entry) => {
        entries.push(entry);
        zip.readEntry();
      });
      zip.on("error", reject);
      zip.on("end", () =>
        resolve({
          entries,
          open: (entry) =>
            new Promise<Readable>((done, fail) => {
              // Deflated entries are inflated here in 1 MiB pieces (yauzl's own inflater hands out
              // 16 KiB ones: a callback per piece dominated reading a large workbook sheet).
              const deflated = entry.compressionMethod === 8 && !entry.isEncrypted();
              zip.openReadStream(entry, deflated ? { decompress: false } : {}, (streamError, stream) => {
                if (streamError || !stream) return fail(streamError ?? new Error("cannot read entry"));
                if (!deflated) return done(stream);
                const inflate = createInflateRaw({ chunkSize: 1 << 20 });
                stream.on("error", (error) => inflate.destroy(error));
                inflate.on("close", () => stream.destroy());
                done(stream.pipe(inflate));
              });
            }),
          close: () => zip.close(),
        }),
      );
      zip.readEntry();
    });
  });
}

/** Resolves `url` relative to the directory of `base` inside the archive (GDPdU URLs and workbook relationships are relative). */
export function resolveEntryPath(base: string, url: string): string {
  const parts = base.split("/").slice(0, -1);
  for (const segment of url.replace(/\\/g, "/").split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") parts.pop();
    else parts.push(segment);
  }
  return parts.join("/");
}
