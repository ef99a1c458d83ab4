-- Webhooks (spec 6), their deliveries (one per event and webhook, run as jobs) and the event log
-- of every delivery attempt.
CREATE TABLE webhook (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  name text NOT NULL,
  -- Stored normalised (WHATWG URL serialisation); one webhook per URL.
  url text NOT NULL UNIQUE,
  -- Dotted event type names (spec 6.5), lower-case.
  events text[] NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'ACTIVE',
  technical_contact_id text REFERENCES app_user (id) ON DELETE SET NULL ON UPDATE CASCADE,
  -- Ed25519 public key (PEM, SPKI); the private key (PKCS#8 DER) encrypted with AES-256-GCM.
  public_key text NOT NULL,
  private_key_encrypted text NOT NULL,
  key_generation_timestamp timestamptz(3) NOT NULL
);
CREATE INDEX webhook_name_lower_idx ON webhook (lower(name) text_pattern_ops);
CREATE INDEX webhook_name_lower_order_idx ON webhook (lower(name));
CREATE INDEX webhook_url_lower_idx ON webhook (lower(url) text_pattern_ops);
CREATE INDEX webhook_url_lower_order_idx ON webhook (lower(url));
CREATE INDEX webhook_events_idx ON webhook USING gin (events);
CREATE INDEX webhook_status_idx ON webhook (status);
CREATE INDEX webhook_technical_contact_id_idx ON webhook (technical_contact_id);
CREATE INDEX webhook_key_generation_timestamp_idx ON webhook (key_generation_timestamp);
CREATE INDEX webhook_creation_date_idx ON webhook (creation_date);
CREATE INDEX webhook_last_modified_date_idx ON webhook (last_modified_date);

-- One event to one webhook. Written by the outbox relay in the transaction that publishes the
-- event, so each (event, webhook) pair exists exactly once; the body is fixed here, so every
-- attempt sends the same bytes.
CREATE TABLE webhook_delivery (
  id text PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES webhook (id) ON DELETE CASCADE,
  outbox_event_id bigint NOT NULL,
  event_id text NOT NULL,
  event_type text NOT NULL,
  body text NOT NULL,
  -- PENDING until COMPLETED, FAILED (no attempt left, refused target, 410) or DISCONNECTED (webhook inactive).
  status text NOT NULL DEFAULT 'PENDING',
  created_at timestamptz(3) NOT NULL DEFAULT now(),
  finished_at timestamptz(3),
  UNIQUE (outbox_event_id, webhook_id)
);
CREATE INDEX webhook_delivery_webhook_id_idx ON webhook_delivery (webhook_id);
CREATE INDEX webhook_delivery_finished_at_idx ON webhook_delivery (finished_at) WHERE finished_at IS NOT NULL;

CREATE TABLE webhook_event_log (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  -- No foreign keys: a log outlives its webhook and delivery until the retention period ends.
  webhook_id text NOT NULL,
  delivery_id text NOT NULL,
  url text NOT NULL,
  event_type text NOT NULL,
  event_id text NOT NULL,
  status text NOT NULL,
  request_id text NOT NULL,
  request_headers jsonb NOT NULL DEFAULT '{}',
  request_body text NOT NULL,
  response_status_code integer,
  response_headers jsonb,
  response_body text,
  response_time_sec double precision,
  retry_count integer NOT NULL,
  attempt_start_date timestamptz(3) NOT NULL,
  next_attempt_date timestamptz(3),
  failure_reason text
);
CREATE INDEX webhook_event_log_webhook_id_idx ON webhook_event_log (webhook_id);
CREATE INDEX webhook_event_log_delivery_id_idx ON webhook_event_log (delivery_id);
CREATE INDEX webhook_event_log_url_lower_idx ON webhook_event_log (lower(url) text_pattern_ops);
CREATE INDEX webhook_event_log_url_lower_order_idx ON webhook_event_log (lower(url));
CREATE INDEX webhook_event_log_event_type_idx ON webhook_event_log (event_type);
CREATE INDEX webhook_event_log_event_id_idx ON webhook_event_log (event_id);
CREATE INDEX webhook_event_log_status_idx ON webhook_event_log (status);
CREATE INDEX webhook_event_log_request_id_idx ON webhook_event_log (request_id);
CREATE INDEX webhook_event_log_response_status_code_idx ON webhook_event_log (response_status_code);
CREATE INDEX webhook_event_log_retry_count_idx ON webhook_event_log (retry_count);
CREATE INDEX webhook_event_log_attempt_start_date_idx ON webhook_event_log (attempt_start_date);
CREATE INDEX webhook_event_log_creation_date_idx ON webhook_event_log (creation_date);
CREATE INDEX webhook_event_log_last_modified_date_idx ON webhook_event_log (last_modified_date);

-- The retention task removes finished delivery jobs (internal async results) with their logs.
CREATE INDEX async_result_finished_internal_idx ON async_result (job_name, completed_at) WHERE internal AND status <> 'IN_PROGRESS';
