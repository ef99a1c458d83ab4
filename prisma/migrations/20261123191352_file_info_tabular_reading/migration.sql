-- What the file info read model lacks of the ingestion engine's reading of a delimited file
-- ({bom, quote, rowCount}), so that an analysis source staging the same file can rebuild the
-- engine's file info instead of profiling the file a second time. Internal: not on the wire.
ALTER TABLE file_info ADD COLUMN tabular_reading jsonb;
