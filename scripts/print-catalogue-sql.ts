// Writes the catalogue seed migration from src/modules/catalogue/*.data.ts. Only regenerate this
// folder while it has not been merged anywhere; once applied, change the catalogue with a new
// migration instead (the runner refuses an edited one).
import { mkdirSync, writeFileSync } from "node:fs";
import { renderCatalogueSql } from "../src/modules/catalogue/catalogue-sql.js";

const folder = new URL("../prisma/migrations/20261122045100_catalogue_seed/", import.meta.url);
mkdirSync(folder, { recursive: true });
writeFileSync(new URL("migration.sql", folder), renderCatalogueSql());
process.stdout.write(`wrote ${folder.pathname}migration.sql\n`);
