-- Saved filters, populations and risk segmentation configs belong to their owner: deleting a
-- library, organization, engagement, analysis or analysis result deletes them with it (ON DELETE
-- CASCADE, as risk ranges, analysis type configurations and tasks do). Links that only record where
-- a population came from (its base, the population it was cloned from, the analysis it was promoted
-- from) are cleared instead: the derived population keeps its own copy of the condition. Analysis
-- types are catalogue rows and are never deleted (RESTRICT, as elsewhere).
--
-- Rows whose owner is already gone were unreachable garbage; they are removed (or their history
-- links cleared) first so that every constraint is validated.

DELETE FROM saved_filter f WHERE
  (f.library_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM library l WHERE l.id = f.library_id)) OR
  (f.organization_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM organization o WHERE o.id = f.organization_id)) OR
  (f.engagement_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM engagement e WHERE e.id = f.engagement_id));
UPDATE saved_filter f SET analysis_type_id = NULL
 WHERE f.analysis_type_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM analysis_type t WHERE t.id = f.analysis_type_id);

ALTER TABLE saved_filter
  ADD CONSTRAINT saved_filter_library_id_fkey FOREIGN KEY (library_id) REFERENCES library (id) ON DELETE CASCADE,
  ADD CONSTRAINT saved_filter_organization_id_fkey FOREIGN KEY (organization_id) REFERENCES organization (id) ON DELETE CASCADE,
  ADD CONSTRAINT saved_filter_engagement_id_fkey FOREIGN KEY (engagement_id) REFERENCES engagement (id) ON DELETE CASCADE,
  ADD CONSTRAINT saved_filter_analysis_type_id_fkey FOREIGN KEY (analysis_type_id) REFERENCES analysis_type (id) ON DELETE RESTRICT;

DELETE FROM population p WHERE
  (p.library_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM library l WHERE l.id = p.library_id)) OR
  (p.engagement_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM engagement e WHERE e.id = p.engagement_id)) OR
  (p.analysis_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM analysis a WHERE a.id = p.analysis_id));
UPDATE population p SET base_population_id = NULL
 WHERE p.base_population_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM population b WHERE b.id = p.base_population_id);
UPDATE population p SET cloned_from = NULL
 WHERE p.cloned_from IS NOT NULL AND NOT EXISTS (SELECT 1 FROM population b WHERE b.id = p.cloned_from);
UPDATE population p SET promoted_from_analysis_id = NULL
 WHERE p.promoted_from_analysis_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM analysis a WHERE a.id = p.promoted_from_analysis_id);
UPDATE population p SET analysis_type_id = NULL
 WHERE p.analysis_type_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM analysis_type t WHERE t.id = p.analysis_type_id);

ALTER TABLE population
  ADD CONSTRAINT population_library_id_fkey FOREIGN KEY (library_id) REFERENCES library (id) ON DELETE CASCADE,
  ADD CONSTRAINT population_engagement_id_fkey FOREIGN KEY (engagement_id) REFERENCES engagement (id) ON DELETE CASCADE,
  ADD CONSTRAINT population_analysis_id_fkey FOREIGN KEY (analysis_id) REFERENCES analysis (id) ON DELETE CASCADE,
  ADD CONSTRAINT population_analysis_type_id_fkey FOREIGN KEY (analysis_type_id) REFERENCES analysis_type (id) ON DELETE RESTRICT,
  ADD CONSTRAINT population_base_population_id_fkey FOREIGN KEY (base_population_id) REFERENCES population (id) ON DELETE SET NULL,
  ADD CONSTRAINT population_cloned_from_fkey FOREIGN KEY (cloned_from) REFERENCES population (id) ON DELETE SET NULL,
  ADD CONSTRAINT population_promoted_from_analysis_id_fkey FOREIGN KEY (promoted_from_analysis_id) REFERENCES analysis (id) ON DELETE SET NULL;
CREATE INDEX population_cloned_from_idx ON population (cloned_from);
CREATE INDEX population_promoted_from_analysis_id_idx ON population (promoted_from_analysis_id);

DELETE FROM risk_segmentation_config r WHERE
  NOT EXISTS (SELECT 1 FROM analysis a WHERE a.id = r.analysis_id) OR
  NOT EXISTS (SELECT 1 FROM analysis_result x WHERE x.id = r.analysis_result_id);

ALTER TABLE risk_segmentation_config
  ADD CONSTRAINT risk_segmentation_config_analysis_id_fkey FOREIGN KEY (analysis_id) REFERENCES analysis (id) ON DELETE CASCADE,
  ADD CONSTRAINT risk_segmentation_config_analysis_result_id_fkey FOREIGN KEY (analysis_result_id) REFERENCES analysis_result (id) ON DELETE CASCADE;
