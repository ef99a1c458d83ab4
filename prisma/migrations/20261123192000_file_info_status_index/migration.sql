-- File infos are polled by `status` (the `state` column: PENDING until the file info job has run,
-- then COMPLETE or FAILED), and the query language may filter on it.
CREATE INDEX file_info_state_idx ON file_info (state);
