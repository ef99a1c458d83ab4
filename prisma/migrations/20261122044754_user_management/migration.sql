-- User management (issue 3 point 9): activation links and the tenant-wide modify-users limit.
-- Only a hash of the activation token is stored; the plain token exists only in the email.
ALTER TABLE app_user ADD COLUMN activation_token_hash text UNIQUE;
ALTER TABLE app_user ADD COLUMN activation_expires_at timestamptz(3);
CREATE INDEX app_user_first_name_lower_idx ON app_user (lower(first_name) text_pattern_ops);
CREATE INDEX app_user_last_name_lower_idx ON app_user (lower(last_name) text_pattern_ops);

-- Fixed-window counters shared by every process on this database (used when Redis is not configured).
CREATE TABLE rate_limit_window (
  key text PRIMARY KEY,
  window_start timestamptz(3) NOT NULL,
  count integer NOT NULL
);
