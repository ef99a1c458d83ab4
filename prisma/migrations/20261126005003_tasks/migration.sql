-- Tasks (spec 2.12): entries or transactions of an analysis result's data tables added to the
-- audit plan, and the history of every change to them.
CREATE TABLE task (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  engagement_id text NOT NULL REFERENCES engagement (id) ON DELETE CASCADE,
  analysis_id text NOT NULL REFERENCES analysis (id) ON DELETE CASCADE,
  analysis_result_id text NOT NULL REFERENCES analysis_result (id) ON DELETE CASCADE,
  analysis_type_id text NOT NULL,
  -- The data table the row was read from (internal: the row is identified by type and row id).
  data_table_id text,
  name text NOT NULL,
  type text NOT NULL,
  status text NOT NULL DEFAULT 'OPEN',
  row_id bigint NOT NULL,
  transaction_id text,
  "transaction" text,
  entry_type text,
  assigned_id text,
  approver_id text,
  approval_id text,
  task_approval_status text,
  description text,
  due_date date,
  sample boolean NOT NULL DEFAULT false,
  sample_type text,
  tags text[] NOT NULL DEFAULT '{}',
  assertions text[] NOT NULL DEFAULT '{}',
  audit_areas text[] NOT NULL DEFAULT '{}',
  comments jsonb NOT NULL DEFAULT '[]',
  amounts jsonb NOT NULL DEFAULT '{}',
  risk_scores jsonb NOT NULL DEFAULT '{}',
  credit_value bigint,
  debit_value bigint,
  customer_name text,
  vendor_name text,
  invoice_ref text,
  filter_statement text
);
-- One task per row of a result (per type): a second request for the same row is a 409, bulk
-- creation skips rows that already have one.
CREATE UNIQUE INDEX task_result_row_idx ON task (analysis_result_id, type, row_id);
CREATE INDEX task_engagement_id_idx ON task (engagement_id);
CREATE INDEX task_analysis_id_idx ON task (analysis_id);
CREATE INDEX task_status_idx ON task (status);
CREATE INDEX task_assigned_id_idx ON task (assigned_id);
CREATE INDEX task_approver_id_idx ON task (approver_id);
CREATE INDEX task_transaction_id_lower_idx ON task (lower(transaction_id) text_pattern_ops);
CREATE INDEX task_name_lower_idx ON task (lower(name) text_pattern_ops);
CREATE INDEX task_due_date_idx ON task (due_date);
CREATE INDEX task_tags_idx ON task USING gin (lower_text_array(tags));
CREATE INDEX task_creation_date_idx ON task (creation_date);
CREATE INDEX task_last_modified_date_idx ON task (last_modified_date);

-- Every change to a task, written in the transaction of the change. No foreign key: the history
-- of a deleted task stays readable (its last entry is the DELETE).
CREATE TABLE task_history (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  task_id text NOT NULL,
  analysis_result_id text,
  user_id text,
  user_name text,
  date_time timestamptz(3) NOT NULL,
  operation text NOT NULL,
  changes jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX task_history_task_id_idx ON task_history (task_id, date_time);
CREATE INDEX task_history_user_id_idx ON task_history (user_id);
CREATE INDEX task_history_date_time_idx ON task_history (date_time);
CREATE INDEX task_history_creation_date_idx ON task_history (creation_date);
