-- Job runtime: async results (the job state) and periodic maintenance tasks.
CREATE TABLE async_result (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  type text NOT NULL,
  status text NOT NULL DEFAULT 'IN_PROGRESS',
  entity_id text,
  entity_type text,
  error text,
  internal boolean NOT NULL DEFAULT false,
  job_name text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}',
  token_id text,
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL,
  lease_owner text,
  lease_expires_at timestamptz(3),
  run_after timestamptz(3) NOT NULL DEFAULT now(),
  last_error text,
  progress integer,
  completed_at timestamptz(3)
);
CREATE INDEX async_result_entity_id_idx ON async_result (entity_id);
CREATE INDEX async_result_type_idx ON async_result (type);
CREATE INDEX async_result_entity_type_idx ON async_result (entity_type);
CREATE INDEX async_result_status_idx ON async_result (status);
CREATE INDEX async_result_last_modified_date_idx ON async_result (last_modified_date);
CREATE INDEX async_result_creation_date_idx ON async_result (creation_date);
-- What the recovery sweep scans: unfinished jobs only.
CREATE INDEX async_result_pending_idx ON async_result (run_after) WHERE status = 'IN_PROGRESS';

CREATE TABLE scheduled_task (
  name text PRIMARY KEY,
  next_run_at timestamptz(3) NOT NULL DEFAULT now(),
  last_run_at timestamptz(3),
  last_error text
);
