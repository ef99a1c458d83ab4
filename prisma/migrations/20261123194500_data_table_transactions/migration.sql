-- General Ledger Transactions (spec 2.10, gl_journal_tx): an analysis source now publishes up to two
-- data tables, its entries and its transactions, told apart by logical name. Each definition gets
-- its kind in `type` (entries or transactions); the ones published so far are all entries tables.
DROP INDEX IF EXISTS data_table_analysis_source_id_key;
CREATE UNIQUE INDEX data_table_analysis_source_id_logical_name_key ON data_table (analysis_source_id, logical_name);
UPDATE data_table SET type = 'entries' WHERE type IS NULL AND analysis_source_id IS NOT NULL;
