import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-expect-error s3rver ships no types
import S3rver from "s3rver";

/** s3rver's fixed credentials (it checks signatures against them). */
export const S3_CREDENTIALS = { AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER" };

export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** The environment a server process needs to store its files in `s3://bucket/prefix`. */
  env(prefix: string): Record<string, string>;
  close(): Promise<void>;
}

/**
 * An S3 protocol server (s3rver: objects on local disk, SigV4 checked, multipart uploads) on a free
 * port of this process, with one empty bucket.
 */
export async function startTestS3(bucket = "fap-test"): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), "fap-s3-"));
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: (prefix) => ({ STORAGE_URL: `s3://${bucket}/${prefix}`, S3_ENDPOINT: endpoint, S3_REGION: "us-east-1", S3_FORCE_PATH_STYLE: "true", ...S3_CREDENTIALS }),
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
