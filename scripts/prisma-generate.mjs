// `prisma generate` works offline from bundled wasm, but the CLI still insists on a schema-engine
// binary it would download. Point it at a stub that refuses to run so generation never reaches the network.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = join(tmpdir(), "prisma-engine-stub");
mkdirSync(dir, { recursive: true });
const stub = join(dir, "schema-engine");
writeFileSync(stub, "#!/bin/sh\necho 'schema-engine is not used: migrations are plain SQL (src/db/migrate.ts)' >&2\nexit 1\n");
chmodSync(stub, 0o755);

const result = spawnSync(process.execPath, ["node_modules/prisma/build/index.js", "generate"], {
  stdio: ["ignore", "pipe", "inherit"],
  env: { ...process.env, PATH: `${join(process.cwd(), "node_modules", ".bin")}:${process.env.PATH}`, PRISMA_SCHEMA_ENGINE_BINARY: stub, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" },
});
if (result.status !== 0) {
  process.stdout.write(result.stdout ?? "");
  process.exit(result.status ?? 1);
}
