-- A data table publishes one analysis source's entries: it goes with its source, however the
-- source is removed (its own delete, or the cascade from its analysis or engagement).
DELETE FROM data_table d WHERE d.analysis_source_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM analysis_source s WHERE s.id = d.analysis_source_id);
ALTER TABLE data_table
  ADD CONSTRAINT data_table_analysis_source_id_fkey FOREIGN KEY (analysis_source_id) REFERENCES analysis_source (id) ON DELETE CASCADE ON UPDATE CASCADE;
