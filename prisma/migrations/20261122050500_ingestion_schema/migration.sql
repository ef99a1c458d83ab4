-- Ledger-like tables of the ingestion engine (staging tables of text columns, typed entry tables)
-- are created at run time, one per analysis source, by plain SQL; they live in their own schema so
-- that they never mix with the Prisma-managed entity tables in "public".
CREATE SCHEMA IF NOT EXISTS ingest;
