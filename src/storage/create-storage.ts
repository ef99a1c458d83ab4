import { join } from "node:path";
import type { Config } from "../config.js";
import { LocalFileStorage } from "./local-storage.js";
import type { FileStorage } from "./storage.js";

/** The backend STORAGE_URL names; the S3 client is loaded only when it is used. */
export async function createStorage(config: Pick<Config, "storage" | "dataDir">): Promise<FileStorage> {
  const storage = config.storage;
  if (storage.kind === "file") return new LocalFileStorage(storage.root ?? join(config.dataDir, "files"));
  const { S3FileStorage } = await import("./s3-storage.js");
  const s3 = new S3FileStorage({ ...storage, scratchDir: join(config.dataDir, "s3-scratch") });
  // Fail at start-up, naming the bucket, rather than at the first upload.
  await s3.checkBucket().catch((error: Error) => {
    throw new Error(`STORAGE_URL: the bucket "${storage.bucket}" is not reachable${storage.endpoint ? ` at ${storage.endpoint}` : ""}: ${error.name}: ${error.message}`);
  });
  return s3;
}
