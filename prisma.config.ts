import { defineConfig } from "prisma/config";

// The CLI is only used offline for `prisma generate`; migrations are plain SQL applied by src/db/migrate.ts.
export default defineConfig({
  schema: "prisma/schema",
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost/unused" },
});
