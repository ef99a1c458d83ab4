-- Account groupings and groups (issue 3 point 7), engagement account groupings and groups.
-- Seeds the SYSTEM grouping of account-classification (MAC) codes under its well-known id; system
-- libraries reference it. Engagement copies are independent rows (no link back to the source groups).

CREATE TABLE account_grouping (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  name jsonb NOT NULL,
  code_display_name jsonb NOT NULL DEFAULT '{}',
  delimiter text NOT NULL,
  mac boolean NOT NULL DEFAULT false,
  system boolean NOT NULL DEFAULT false,
  archived boolean NOT NULL DEFAULT false,
  publish_status text NOT NULL,
  published_date timestamptz(3)
);
CREATE INDEX account_grouping_publish_status_idx ON account_grouping (publish_status);
CREATE INDEX account_grouping_flags_idx ON account_grouping (system, mac, archived);
CREATE INDEX account_grouping_name_en_lower_idx ON account_grouping (lower(name->>'en') text_pattern_ops);

CREATE TABLE account_group (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  account_grouping_id text NOT NULL REFERENCES account_grouping (id) ON DELETE CASCADE ON UPDATE CASCADE,
  code text NOT NULL,
  parent_code text,
  description jsonb NOT NULL DEFAULT '{}',
  hierarchy text[] NOT NULL DEFAULT '{}',
  lowest_level boolean NOT NULL DEFAULT true,
  mac_code text,
  account_tags text[] NOT NULL DEFAULT '{}',
  order_index integer NOT NULL DEFAULT 0,
  published_date timestamptz(3),
  errors jsonb NOT NULL DEFAULT '[]',
  CONSTRAINT account_group_code_key UNIQUE (account_grouping_id, code)
);
CREATE INDEX account_group_grouping_order_idx ON account_group (account_grouping_id, order_index);
CREATE INDEX account_group_code_lower_idx ON account_group (lower(code) text_pattern_ops);
CREATE INDEX account_group_parent_code_lower_idx ON account_group (lower(parent_code) text_pattern_ops);
CREATE INDEX account_group_mac_code_lower_idx ON account_group (lower(mac_code) text_pattern_ops);
CREATE INDEX account_group_account_tags_idx ON account_group USING gin (account_tags);
CREATE INDEX account_group_hierarchy_idx ON account_group USING gin (hierarchy);

CREATE TABLE engagement_account_grouping (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  engagement_id text NOT NULL UNIQUE REFERENCES engagement (id) ON DELETE CASCADE ON UPDATE CASCADE,
  -- The grouping it was copied from; kept for reference only (the copy never follows it).
  account_grouping_id text REFERENCES account_grouping (id) ON DELETE SET NULL ON UPDATE CASCADE,
  name jsonb NOT NULL,
  code_display_name jsonb NOT NULL DEFAULT '{}',
  delimiter text NOT NULL,
  mac boolean NOT NULL DEFAULT false
);
CREATE INDEX engagement_account_grouping_account_grouping_id_idx ON engagement_account_grouping (account_grouping_id);

CREATE TABLE engagement_account_group (
  id text PRIMARY KEY,
  version integer NOT NULL DEFAULT 0,
  creation_date timestamptz(3) NOT NULL DEFAULT now(),
  last_modified_date timestamptz(3) NOT NULL DEFAULT now(),
  created_user_id text,
  created_user_name text,
  last_modified_user_id text,
  last_modified_user_name text,
  engagement_account_grouping_id text NOT NULL REFERENCES engagement_account_grouping (id) ON DELETE CASCADE ON UPDATE CASCADE,
  code text NOT NULL,
  parent_code text,
  description jsonb NOT NULL DEFAULT '{}',
  hierarchy text[] NOT NULL DEFAULT '{}',
  lowest_level boolean NOT NULL DEFAULT true,
  mac_code text,
  account_tags text[] NOT NULL DEFAULT '{}',
  order_index integer NOT NULL DEFAULT 0,
  published_date timestamptz(3),
  errors jsonb NOT NULL DEFAULT '[]',
  alias text,
  hidden boolean NOT NULL DEFAULT false,
  origin text NOT NULL,
  CONSTRAINT engagement_account_group_code_key UNIQUE (engagement_account_grouping_id, code)
);
CREATE INDEX engagement_account_group_grouping_order_idx ON engagement_account_group (engagement_account_grouping_id, order_index);
CREATE INDEX engagement_account_group_code_lower_idx ON engagement_account_group (lower(code) text_pattern_ops);
CREATE INDEX engagement_account_group_parent_code_lower_idx ON engagement_account_group (lower(parent_code) text_pattern_ops);
CREATE INDEX engagement_account_group_mac_code_lower_idx ON engagement_account_group (lower(mac_code) text_pattern_ops);
CREATE INDEX engagement_account_group_alias_lower_idx ON engagement_account_group (lower(alias) text_pattern_ops);
CREATE INDEX engagement_account_group_hidden_idx ON engagement_account_group (engagement_account_grouping_id, hidden);
CREATE INDEX engagement_account_group_origin_idx ON engagement_account_group (origin);
CREATE INDEX engagement_account_group_account_tags_idx ON engagement_account_group USING gin (account_tags);
CREATE INDEX engagement_account_group_hierarchy_idx ON engagement_account_group USING gin (hierarchy);

-- The system account-classification (MAC) grouping: levels 1 (statement class) to 4 (MAC code).
INSERT INTO account_grouping (id, creation_date, last_modified_date, created_user_name, last_modified_user_name, name, code_display_name, delimiter, mac, system, archived, publish_status, published_date)
VALUES ('5cc9076887f13cb8a7a19300', '2024-01-01T00:00:00Z', '2024-01-01T00:00:00Z', 'system', 'system',
  '{"en": "Platform account classification (MAC)"}', '{"en": "MAC code"}', '.', true, true, false, 'PUBLISHED', '2024-01-01T00:00:00Z');

INSERT INTO account_group (id, code, parent_code, description, hierarchy, lowest_level, mac_code, account_tags, order_index,
  account_grouping_id, creation_date, last_modified_date, created_user_name, last_modified_user_name, published_date)
SELECT v.id, v.code, v.parent_code, v.description::jsonb, v.hierarchy::text[], v.lowest_level, v.mac_code, v.account_tags::text[], v.order_index, '5cc9076887f13cb8a7a19300', timestamptz '2024-01-01T00:00:00Z', timestamptz '2024-01-01T00:00:00Z', 'system', 'system', timestamptz '2024-01-01T00:00:00Z'
FROM (VALUES
  ('5cc9076887f13cb8a7a20001', '1', NULL, '{"en": "Assets"}', '{"1"}', false, '1', '{}', 0),
  ('5cc9076887f13cb8a7a20002', '1.1', '1', '{"en": "Current assets"}', '{"1","1.1"}', false, '1.1', '{}', 1),
  ('5cc9076887f13cb8a7a20003', '1.1.1', '1.1', '{"en": "Cash and cash equivalents"}', '{"1","1.1","1.1.1"}', false, '1.1.1', '{}', 2),
  ('5cc9076887f13cb8a7a20004', '1.1.1.1', '1.1.1', '{"en": "Cash on hand"}', '{"1","1.1","1.1.1","1.1.1.1"}', true, '1.1.1.1', '{"cash"}', 3),
  ('5cc9076887f13cb8a7a20005', '1.1.1.2', '1.1.1', '{"en": "Cash at bank"}', '{"1","1.1","1.1.1","1.1.1.2"}', true, '1.1.1.2', '{"cash"}', 4),
  ('5cc9076887f13cb8a7a20006', '1.1.1.3', '1.1.1', '{"en": "Short-term deposits"}', '{"1","1.1","1.1.1","1.1.1.3"}', true, '1.1.1.3', '{"cash"}', 5),
  ('5cc9076887f13cb8a7a20007', '1.1.2', '1.1', '{"en": "Trade and other receivables"}', '{"1","1.1","1.1.2"}', false, '1.1.2', '{}', 6),
  ('5cc9076887f13cb8a7a20008', '1.1.2.1', '1.1.2', '{"en": "Trade receivables"}', '{"1","1.1","1.1.2","1.1.2.1"}', true, '1.1.2.1', '{"accounts_receivable"}', 7),
  ('5cc9076887f13cb8a7a20009', '1.1.2.2', '1.1.2', '{"en": "Allowance for doubtful accounts"}', '{"1","1.1","1.1.2","1.1.2.2"}', true, '1.1.2.2', '{"accounts_receivable"}', 8),
  ('5cc9076887f13cb8a7a2000a', '1.1.2.3', '1.1.2', '{"en": "Other receivables"}', '{"1","1.1","1.1.2","1.1.2.3"}', true, '1.1.2.3', '{}', 9),
  ('5cc9076887f13cb8a7a2000b', '1.1.2.4', '1.1.2', '{"en": "Related party receivables"}', '{"1","1.1","1.1.2","1.1.2.4"}', true, '1.1.2.4', '{"related_party"}', 10),
  ('5cc9076887f13cb8a7a2000c', '1.1.3', '1.1', '{"en": "Inventories"}', '{"1","1.1","1.1.3"}', false, '1.1.3', '{}', 11),
  ('5cc9076887f13cb8a7a2000d', '1.1.3.1', '1.1.3', '{"en": "Raw materials"}', '{"1","1.1","1.1.3","1.1.3.1"}', true, '1.1.3.1', '{"inventory"}', 12),
  ('5cc9076887f13cb8a7a2000e', '1.1.3.2', '1.1.3', '{"en": "Work in progress"}', '{"1","1.1","1.1.3","1.1.3.2"}', true, '1.1.3.2', '{"inventory"}', 13),
  ('5cc9076887f13cb8a7a2000f', '1.1.3.3', '1.1.3', '{"en": "Finished goods"}', '{"1","1.1","1.1.3","1.1.3.3"}', true, '1.1.3.3', '{"inventory"}', 14),
  ('5cc9076887f13cb8a7a20010', '1.1.3.4', '1.1.3', '{"en": "Inventory provisions"}', '{"1","1.1","1.1.3","1.1.3.4"}', true, '1.1.3.4', '{"inventory"}', 15),
  ('5cc9076887f13cb8a7a20011', '1.1.4', '1.1', '{"en": "Prepayments and other current assets"}', '{"1","1.1","1.1.4"}', false, '1.1.4', '{}', 16),
  ('5cc9076887f13cb8a7a20012', '1.1.4.1', '1.1.4', '{"en": "Prepaid expenses"}', '{"1","1.1","1.1.4","1.1.4.1"}', true, '1.1.4.1', '{}', 17),
  ('5cc9076887f13cb8a7a20013', '1.1.4.2', '1.1.4', '{"en": "Deposits paid"}', '{"1","1.1","1.1.4","1.1.4.2"}', true, '1.1.4.2', '{}', 18),
  ('5cc9076887f13cb8a7a20014', '1.1.4.3', '1.1.4', '{"en": "Current tax assets"}', '{"1","1.1","1.1.4","1.1.4.3"}', true, '1.1.4.3', '{"tax"}', 19),
  ('5cc9076887f13cb8a7a20015', '1.1.5', '1.1', '{"en": "Short-term investments"}', '{"1","1.1","1.1.5"}', false, '1.1.5', '{}', 20),
  ('5cc9076887f13cb8a7a20016', '1.1.5.1', '1.1.5', '{"en": "Marketable securities"}', '{"1","1.1","1.1.5","1.1.5.1"}', true, '1.1.5.1', '{}', 21),
  ('5cc9076887f13cb8a7a20017', '1.1.5.2', '1.1.5', '{"en": "Current derivative assets"}', '{"1","1.1","1.1.5","1.1.5.2"}', true, '1.1.5.2', '{}', 22),
  ('5cc9076887f13cb8a7a20018', '1.2', '1', '{"en": "Non-current assets"}', '{"1","1.2"}', false, '1.2', '{}', 23),
  ('5cc9076887f13cb8a7a20019', '1.2.1', '1.2', '{"en": "Property, plant and equipment"}', '{"1","1.2","1.2.1"}', false, '1.2.1', '{}', 24),
  ('5cc9076887f13cb8a7a2001a', '1.2.1.1', '1.2.1', '{"en": "Land"}', '{"1","1.2","1.2.1","1.2.1.1"}', true, '1.2.1.1', '{"fixed_assets"}', 25),
  ('5cc9076887f13cb8a7a2001b', '1.2.1.2', '1.2.1', '{"en": "Buildings"}', '{"1","1.2","1.2.1","1.2.1.2"}', true, '1.2.1.2', '{"fixed_assets"}', 26),
  ('5cc9076887f13cb8a7a2001c', '1.2.1.3', '1.2.1', '{"en": "Plant and machinery"}', '{"1","1.2","1.2.1","1.2.1.3"}', true, '1.2.1.3', '{"fixed_assets"}', 27),
  ('5cc9076887f13cb8a7a2001d', '1.2.1.4', '1.2.1', '{"en": "Furniture and fixtures"}', '{"1","1.2","1.2.1","1.2.1.4"}', true, '1.2.1.4', '{"fixed_assets"}', 28),
  ('5cc9076887f13cb8a7a2001e', '1.2.1.5', '1.2.1', '{"en": "Motor vehicles"}', '{"1","1.2","1.2.1","1.2.1.5"}', true, '1.2.1.5', '{"fixed_assets"}', 29),
  ('5cc9076887f13cb8a7a2001f', '1.2.1.6', '1.2.1', '{"en": "Computer equipment"}', '{"1","1.2","1.2.1","1.2.1.6"}', true, '1.2.1.6', '{"fixed_assets"}', 30),
  ('5cc9076887f13cb8a7a20020', '1.2.1.7', '1.2.1', '{"en": "Accumulated depreciation"}', '{"1","1.2","1.2.1","1.2.1.7"}', true, '1.2.1.7', '{"fixed_assets","accumulated_depreciation"}', 31),
  ('5cc9076887f13cb8a7a20021', '1.2.2', '1.2', '{"en": "Intangible assets"}', '{"1","1.2","1.2.2"}', false, '1.2.2', '{}', 32),
  ('5cc9076887f13cb8a7a20022', '1.2.2.1', '1.2.2', '{"en": "Goodwill"}', '{"1","1.2","1.2.2","1.2.2.1"}', true, '1.2.2.1', '{"intangibles"}', 33),
  ('5cc9076887f13cb8a7a20023', '1.2.2.2', '1.2.2', '{"en": "Software"}', '{"1","1.2","1.2.2","1.2.2.2"}', true, '1.2.2.2', '{"intangibles"}', 34),
  ('5cc9076887f13cb8a7a20024', '1.2.2.3', '1.2.2', '{"en": "Patents and trademarks"}', '{"1","1.2","1.2.2","1.2.2.3"}', true, '1.2.2.3', '{"intangibles"}', 35),
  ('5cc9076887f13cb8a7a20025', '1.2.2.4', '1.2.2', '{"en": "Accumulated amortization"}', '{"1","1.2","1.2.2","1.2.2.4"}', true, '1.2.2.4', '{"intangibles","accumulated_amortization"}', 36),
  ('5cc9076887f13cb8a7a20026', '1.2.3', '1.2', '{"en": "Long-term investments"}', '{"1","1.2","1.2.3"}', false, '1.2.3', '{}', 37),
  ('5cc9076887f13cb8a7a20027', '1.2.3.1', '1.2.3', '{"en": "Investments in subsidiaries"}', '{"1","1.2","1.2.3","1.2.3.1"}', true, '1.2.3.1', '{"related_party"}', 38),
  ('5cc9076887f13cb8a7a20028', '1.2.3.2', '1.2.3', '{"en": "Investments in associates"}', '{"1","1.2","1.2.3","1.2.3.2"}', true, '1.2.3.2', '{}', 39),
  ('5cc9076887f13cb8a7a20029', '1.2.3.3', '1.2.3', '{"en": "Other long-term investments"}', '{"1","1.2","1.2.3","1.2.3.3"}', true, '1.2.3.3', '{}', 40),
  ('5cc9076887f13cb8a7a2002a', '1.2.4', '1.2', '{"en": "Right-of-use assets"}', '{"1","1.2","1.2.4"}', false, '1.2.4', '{}', 41),
  ('5cc9076887f13cb8a7a2002b', '1.2.4.1', '1.2.4', '{"en": "Right-of-use assets"}', '{"1","1.2","1.2.4","1.2.4.1"}', true, '1.2.4.1', '{"leases"}', 42),
  ('5cc9076887f13cb8a7a2002c', '1.2.4.2', '1.2.4', '{"en": "Accumulated depreciation on right-of-use assets"}', '{"1","1.2","1.2.4","1.2.4.2"}', true, '1.2.4.2', '{"leases","accumulated_depreciation"}', 43),
  ('5cc9076887f13cb8a7a2002d', '1.2.5', '1.2', '{"en": "Deferred tax assets"}', '{"1","1.2","1.2.5"}', false, '1.2.5', '{}', 44),
  ('5cc9076887f13cb8a7a2002e', '1.2.5.1', '1.2.5', '{"en": "Deferred tax assets"}', '{"1","1.2","1.2.5","1.2.5.1"}', true, '1.2.5.1', '{"tax"}', 45),
  ('5cc9076887f13cb8a7a2002f', '1.2.6', '1.2', '{"en": "Other non-current assets"}', '{"1","1.2","1.2.6"}', false, '1.2.6', '{}', 46),
  ('5cc9076887f13cb8a7a20030', '1.2.6.1', '1.2.6', '{"en": "Long-term receivables"}', '{"1","1.2","1.2.6","1.2.6.1"}', true, '1.2.6.1', '{}', 47),
  ('5cc9076887f13cb8a7a20031', '1.2.6.2', '1.2.6', '{"en": "Long-term deposits"}', '{"1","1.2","1.2.6","1.2.6.2"}', true, '1.2.6.2', '{}', 48),
  ('5cc9076887f13cb8a7a20032', '2', NULL, '{"en": "Liabilities"}', '{"2"}', false, '2', '{}', 49),
  ('5cc9076887f13cb8a7a20033', '2.1', '2', '{"en": "Current liabilities"}', '{"2","2.1"}', false, '2.1', '{}', 50),
  ('5cc9076887f13cb8a7a20034', '2.1.1', '2.1', '{"en": "Trade and other payables"}', '{"2","2.1","2.1.1"}', false, '2.1.1', '{}', 51),
  ('5cc9076887f13cb8a7a20035', '2.1.1.1', '2.1.1', '{"en": "Trade payables"}', '{"2","2.1","2.1.1","2.1.1.1"}', true, '2.1.1.1', '{"accounts_payable"}', 52),
  ('5cc9076887f13cb8a7a20036', '2.1.1.2', '2.1.1', '{"en": "Accrued liabilities"}', '{"2","2.1","2.1.1","2.1.1.2"}', true, '2.1.1.2', '{"accruals"}', 53),
  ('5cc9076887f13cb8a7a20037', '2.1.1.3', '2.1.1', '{"en": "Other payables"}', '{"2","2.1","2.1.1","2.1.1.3"}', true, '2.1.1.3', '{}', 54),
  ('5cc9076887f13cb8a7a20038', '2.1.1.4', '2.1.1', '{"en": "Related party payables"}', '{"2","2.1","2.1.1","2.1.1.4"}', true, '2.1.1.4', '{"related_party"}', 55),
  ('5cc9076887f13cb8a7a20039', '2.1.2', '2.1', '{"en": "Short-term borrowings"}', '{"2","2.1","2.1.2"}', false, '2.1.2', '{}', 56),
  ('5cc9076887f13cb8a7a2003a', '2.1.2.1', '2.1.2', '{"en": "Bank overdrafts"}', '{"2","2.1","2.1.2","2.1.2.1"}', true, '2.1.2.1', '{"debt"}', 57),
  ('5cc9076887f13cb8a7a2003b', '2.1.2.2', '2.1.2', '{"en": "Short-term loans"}', '{"2","2.1","2.1.2","2.1.2.2"}', true, '2.1.2.2', '{"debt"}', 58),
  ('5cc9076887f13cb8a7a2003c', '2.1.2.3', '2.1.2', '{"en": "Current portion of long-term debt"}', '{"2","2.1","2.1.2","2.1.2.3"}', true, '2.1.2.3', '{"debt"}', 59),
  ('5cc9076887f13cb8a7a2003d', '2.1.3', '2.1', '{"en": "Employee liabilities"}', '{"2","2.1","2.1.3"}', false, '2.1.3', '{}', 60),
  ('5cc9076887f13cb8a7a2003e', '2.1.3.1', '2.1.3', '{"en": "Wages and salaries payable"}', '{"2","2.1","2.1.3","2.1.3.1"}', true, '2.1.3.1', '{"payroll"}', 61),
  ('5cc9076887f13cb8a7a2003f', '2.1.3.2', '2.1.3', '{"en": "Payroll taxes payable"}', '{"2","2.1","2.1.3","2.1.3.2"}', true, '2.1.3.2', '{"payroll","tax"}', 62),
  ('5cc9076887f13cb8a7a20040', '2.1.3.3', '2.1.3', '{"en": "Employee benefits payable"}', '{"2","2.1","2.1.3","2.1.3.3"}', true, '2.1.3.3', '{"payroll"}', 63),
  ('5cc9076887f13cb8a7a20041', '2.1.4', '2.1', '{"en": "Tax liabilities"}', '{"2","2.1","2.1.4"}', false, '2.1.4', '{}', 64),
  ('5cc9076887f13cb8a7a20042', '2.1.4.1', '2.1.4', '{"en": "Income tax payable"}', '{"2","2.1","2.1.4","2.1.4.1"}', true, '2.1.4.1', '{"tax"}', 65),
  ('5cc9076887f13cb8a7a20043', '2.1.4.2', '2.1.4', '{"en": "Sales tax payable"}', '{"2","2.1","2.1.4","2.1.4.2"}', true, '2.1.4.2', '{"tax"}', 66),
  ('5cc9076887f13cb8a7a20044', '2.1.5', '2.1', '{"en": "Deferred revenue and customer deposits"}', '{"2","2.1","2.1.5"}', false, '2.1.5', '{}', 67),
  ('5cc9076887f13cb8a7a20045', '2.1.5.1', '2.1.5', '{"en": "Deferred revenue"}', '{"2","2.1","2.1.5","2.1.5.1"}', true, '2.1.5.1', '{"revenue"}', 68),
  ('5cc9076887f13cb8a7a20046', '2.1.5.2', '2.1.5', '{"en": "Customer deposits"}', '{"2","2.1","2.1.5","2.1.5.2"}', true, '2.1.5.2', '{}', 69),
  ('5cc9076887f13cb8a7a20047', '2.1.6', '2.1', '{"en": "Current lease liabilities"}', '{"2","2.1","2.1.6"}', false, '2.1.6', '{}', 70),
  ('5cc9076887f13cb8a7a20048', '2.1.6.1', '2.1.6', '{"en": "Current lease liabilities"}', '{"2","2.1","2.1.6","2.1.6.1"}', true, '2.1.6.1', '{"leases"}', 71),
  ('5cc9076887f13cb8a7a20049', '2.1.7', '2.1', '{"en": "Current provisions"}', '{"2","2.1","2.1.7"}', false, '2.1.7', '{}', 72),
  ('5cc9076887f13cb8a7a2004a', '2.1.7.1', '2.1.7', '{"en": "Warranty provisions"}', '{"2","2.1","2.1.7","2.1.7.1"}', true, '2.1.7.1', '{"provisions"}', 73),
  ('5cc9076887f13cb8a7a2004b', '2.1.7.2', '2.1.7', '{"en": "Other current provisions"}', '{"2","2.1","2.1.7","2.1.7.2"}', true, '2.1.7.2', '{"provisions"}', 74),
  ('5cc9076887f13cb8a7a2004c', '2.2', '2', '{"en": "Non-current liabilities"}', '{"2","2.2"}', false, '2.2', '{}', 75),
  ('5cc9076887f13cb8a7a2004d', '2.2.1', '2.2', '{"en": "Long-term borrowings"}', '{"2","2.2","2.2.1"}', false, '2.2.1', '{}', 76),
  ('5cc9076887f13cb8a7a2004e', '2.2.1.1', '2.2.1', '{"en": "Bank loans"}', '{"2","2.2","2.2.1","2.2.1.1"}', true, '2.2.1.1', '{"debt"}', 77),
  ('5cc9076887f13cb8a7a2004f', '2.2.1.2', '2.2.1', '{"en": "Bonds and notes payable"}', '{"2","2.2","2.2.1","2.2.1.2"}', true, '2.2.1.2', '{"debt"}', 78),
  ('5cc9076887f13cb8a7a20050', '2.2.1.3', '2.2.1', '{"en": "Related party loans"}', '{"2","2.2","2.2.1","2.2.1.3"}', true, '2.2.1.3', '{"debt","related_party"}', 79),
  ('5cc9076887f13cb8a7a20051', '2.2.2', '2.2', '{"en": "Non-current lease liabilities"}', '{"2","2.2","2.2.2"}', false, '2.2.2', '{}', 80),
  ('5cc9076887f13cb8a7a20052', '2.2.2.1', '2.2.2', '{"en": "Non-current lease liabilities"}', '{"2","2.2","2.2.2","2.2.2.1"}', true, '2.2.2.1', '{"leases"}', 81),
  ('5cc9076887f13cb8a7a20053', '2.2.3', '2.2', '{"en": "Deferred tax liabilities"}', '{"2","2.2","2.2.3"}', false, '2.2.3', '{}', 82),
  ('5cc9076887f13cb8a7a20054', '2.2.3.1', '2.2.3', '{"en": "Deferred tax liabilities"}', '{"2","2.2","2.2.3","2.2.3.1"}', true, '2.2.3.1', '{"tax"}', 83),
  ('5cc9076887f13cb8a7a20055', '2.2.4', '2.2', '{"en": "Non-current provisions"}', '{"2","2.2","2.2.4"}', false, '2.2.4', '{}', 84),
  ('5cc9076887f13cb8a7a20056', '2.2.4.1', '2.2.4', '{"en": "Decommissioning provisions"}', '{"2","2.2","2.2.4","2.2.4.1"}', true, '2.2.4.1', '{"provisions"}', 85),
  ('5cc9076887f13cb8a7a20057', '2.2.4.2', '2.2.4', '{"en": "Pension obligations"}', '{"2","2.2","2.2.4","2.2.4.2"}', true, '2.2.4.2', '{"payroll"}', 86),
  ('5cc9076887f13cb8a7a20058', '2.2.4.3', '2.2.4', '{"en": "Other non-current provisions"}', '{"2","2.2","2.2.4","2.2.4.3"}', true, '2.2.4.3', '{"provisions"}', 87),
  ('5cc9076887f13cb8a7a20059', '3', NULL, '{"en": "Equity"}', '{"3"}', false, '3', '{}', 88),
  ('5cc9076887f13cb8a7a2005a', '3.1', '3', '{"en": "Share capital"}', '{"3","3.1"}', false, '3.1', '{}', 89),
  ('5cc9076887f13cb8a7a2005b', '3.1.1', '3.1', '{"en": "Issued capital"}', '{"3","3.1","3.1.1"}', false, '3.1.1', '{}', 90),
  ('5cc9076887f13cb8a7a2005c', '3.1.1.1', '3.1.1', '{"en": "Common shares"}', '{"3","3.1","3.1.1","3.1.1.1"}', true, '3.1.1.1', '{"equity"}', 91),
  ('5cc9076887f13cb8a7a2005d', '3.1.1.2', '3.1.1', '{"en": "Preferred shares"}', '{"3","3.1","3.1.1","3.1.1.2"}', true, '3.1.1.2', '{"equity"}', 92),
  ('5cc9076887f13cb8a7a2005e', '3.1.1.3', '3.1.1', '{"en": "Share premium"}', '{"3","3.1","3.1.1","3.1.1.3"}', true, '3.1.1.3', '{"equity"}', 93),
  ('5cc9076887f13cb8a7a2005f', '3.1.1.4', '3.1.1', '{"en": "Treasury shares"}', '{"3","3.1","3.1.1","3.1.1.4"}', true, '3.1.1.4', '{"equity"}', 94),
  ('5cc9076887f13cb8a7a20060', '3.2', '3', '{"en": "Reserves"}', '{"3","3.2"}', false, '3.2', '{}', 95),
  ('5cc9076887f13cb8a7a20061', '3.2.1', '3.2', '{"en": "Retained earnings"}', '{"3","3.2","3.2.1"}', false, '3.2.1', '{}', 96),
  ('5cc9076887f13cb8a7a20062', '3.2.1.1', '3.2.1', '{"en": "Retained earnings"}', '{"3","3.2","3.2.1","3.2.1.1"}', true, '3.2.1.1', '{"equity","retained_earnings"}', 97),
  ('5cc9076887f13cb8a7a20063', '3.2.1.2', '3.2.1', '{"en": "Dividends declared"}', '{"3","3.2","3.2.1","3.2.1.2"}', true, '3.2.1.2', '{"equity"}', 98),
  ('5cc9076887f13cb8a7a20064', '3.2.2', '3.2', '{"en": "Other reserves"}', '{"3","3.2","3.2.2"}', false, '3.2.2', '{}', 99),
  ('5cc9076887f13cb8a7a20065', '3.2.2.1', '3.2.2', '{"en": "Revaluation reserve"}', '{"3","3.2","3.2.2","3.2.2.1"}', true, '3.2.2.1', '{"equity"}', 100),
  ('5cc9076887f13cb8a7a20066', '3.2.2.2', '3.2.2', '{"en": "Foreign currency translation reserve"}', '{"3","3.2","3.2.2","3.2.2.2"}', true, '3.2.2.2', '{"equity"}', 101),
  ('5cc9076887f13cb8a7a20067', '3.2.2.3', '3.2.2', '{"en": "Accumulated other comprehensive income"}', '{"3","3.2","3.2.2","3.2.2.3"}', true, '3.2.2.3', '{"equity"}', 102),
  ('5cc9076887f13cb8a7a20068', '3.3', '3', '{"en": "Non-controlling interests"}', '{"3","3.3"}', false, '3.3', '{}', 103),
  ('5cc9076887f13cb8a7a20069', '3.3.1', '3.3', '{"en": "Non-controlling interests"}', '{"3","3.3","3.3.1"}', false, '3.3.1', '{}', 104),
  ('5cc9076887f13cb8a7a2006a', '3.3.1.1', '3.3.1', '{"en": "Non-controlling interests"}', '{"3","3.3","3.3.1","3.3.1.1"}', true, '3.3.1.1', '{"equity"}', 105),
  ('5cc9076887f13cb8a7a2006b', '4', NULL, '{"en": "Revenue"}', '{"4"}', false, '4', '{}', 106),
  ('5cc9076887f13cb8a7a2006c', '4.1', '4', '{"en": "Operating revenue"}', '{"4","4.1"}', false, '4.1', '{}', 107),
  ('5cc9076887f13cb8a7a2006d', '4.1.1', '4.1', '{"en": "Sales of goods"}', '{"4","4.1","4.1.1"}', false, '4.1.1', '{}', 108),
  ('5cc9076887f13cb8a7a2006e', '4.1.1.1', '4.1.1', '{"en": "Product sales"}', '{"4","4.1","4.1.1","4.1.1.1"}', true, '4.1.1.1', '{"revenue"}', 109),
  ('5cc9076887f13cb8a7a2006f', '4.1.1.2', '4.1.1', '{"en": "Sales returns and allowances"}', '{"4","4.1","4.1.1","4.1.1.2"}', true, '4.1.1.2', '{"revenue"}', 110),
  ('5cc9076887f13cb8a7a20070', '4.1.1.3', '4.1.1', '{"en": "Sales discounts"}', '{"4","4.1","4.1.1","4.1.1.3"}', true, '4.1.1.3', '{"revenue"}', 111),
  ('5cc9076887f13cb8a7a20071', '4.1.2', '4.1', '{"en": "Rendering of services"}', '{"4","4.1","4.1.2"}', false, '4.1.2', '{}', 112),
  ('5cc9076887f13cb8a7a20072', '4.1.2.1', '4.1.2', '{"en": "Service revenue"}', '{"4","4.1","4.1.2","4.1.2.1"}', true, '4.1.2.1', '{"revenue"}', 113),
  ('5cc9076887f13cb8a7a20073', '4.1.2.2', '4.1.2', '{"en": "Subscription revenue"}', '{"4","4.1","4.1.2","4.1.2.2"}', true, '4.1.2.2', '{"revenue"}', 114),
  ('5cc9076887f13cb8a7a20074', '4.1.3', '4.1', '{"en": "Other operating revenue"}', '{"4","4.1","4.1.3"}', false, '4.1.3', '{}', 115),
  ('5cc9076887f13cb8a7a20075', '4.1.3.1', '4.1.3', '{"en": "Rental income"}', '{"4","4.1","4.1.3","4.1.3.1"}', true, '4.1.3.1', '{"revenue"}', 116),
  ('5cc9076887f13cb8a7a20076', '4.1.3.2', '4.1.3', '{"en": "Royalty income"}', '{"4","4.1","4.1.3","4.1.3.2"}', true, '4.1.3.2', '{"revenue"}', 117),
  ('5cc9076887f13cb8a7a20077', '4.2', '4', '{"en": "Other income"}', '{"4","4.2"}', false, '4.2', '{}', 118),
  ('5cc9076887f13cb8a7a20078', '4.2.1', '4.2', '{"en": "Finance income"}', '{"4","4.2","4.2.1"}', false, '4.2.1', '{}', 119),
  ('5cc9076887f13cb8a7a20079', '4.2.1.1', '4.2.1', '{"en": "Interest income"}', '{"4","4.2","4.2.1","4.2.1.1"}', true, '4.2.1.1', '{"finance_income"}', 120),
  ('5cc9076887f13cb8a7a2007a', '4.2.1.2', '4.2.1', '{"en": "Dividend income"}', '{"4","4.2","4.2.1","4.2.1.2"}', true, '4.2.1.2', '{"finance_income"}', 121),
  ('5cc9076887f13cb8a7a2007b', '4.2.2', '4.2', '{"en": "Gains"}', '{"4","4.2","4.2.2"}', false, '4.2.2', '{}', 122),
  ('5cc9076887f13cb8a7a2007c', '4.2.2.1', '4.2.2', '{"en": "Gain on disposal of assets"}', '{"4","4.2","4.2.2","4.2.2.1"}', true, '4.2.2.1', '{"fixed_assets"}', 123),
  ('5cc9076887f13cb8a7a2007d', '4.2.2.2', '4.2.2', '{"en": "Foreign exchange gains"}', '{"4","4.2","4.2.2","4.2.2.2"}', true, '4.2.2.2', '{"foreign_exchange"}', 124),
  ('5cc9076887f13cb8a7a2007e', '4.2.2.3', '4.2.2', '{"en": "Other gains"}', '{"4","4.2","4.2.2","4.2.2.3"}', true, '4.2.2.3', '{}', 125),
  ('5cc9076887f13cb8a7a2007f', '5', NULL, '{"en": "Expenses"}', '{"5"}', false, '5', '{}', 126),
  ('5cc9076887f13cb8a7a20080', '5.1', '5', '{"en": "Cost of sales"}', '{"5","5.1"}', false, '5.1', '{}', 127),
  ('5cc9076887f13cb8a7a20081', '5.1.1', '5.1', '{"en": "Cost of goods sold"}', '{"5","5.1","5.1.1"}', false, '5.1.1', '{}', 128),
  ('5cc9076887f13cb8a7a20082', '5.1.1.1', '5.1.1', '{"en": "Materials"}', '{"5","5.1","5.1.1","5.1.1.1"}', true, '5.1.1.1', '{"cost_of_sales"}', 129),
  ('5cc9076887f13cb8a7a20083', '5.1.1.2', '5.1.1', '{"en": "Direct labour"}', '{"5","5.1","5.1.1","5.1.1.2"}', true, '5.1.1.2', '{"cost_of_sales","payroll"}', 130),
  ('5cc9076887f13cb8a7a20084', '5.1.1.3', '5.1.1', '{"en": "Manufacturing overhead"}', '{"5","5.1","5.1.1","5.1.1.3"}', true, '5.1.1.3', '{"cost_of_sales"}', 131),
  ('5cc9076887f13cb8a7a20085', '5.1.1.4', '5.1.1', '{"en": "Freight-in"}', '{"5","5.1","5.1.1","5.1.1.4"}', true, '5.1.1.4', '{"cost_of_sales"}', 132),
  ('5cc9076887f13cb8a7a20086', '5.1.1.5', '5.1.1', '{"en": "Inventory write-downs"}', '{"5","5.1","5.1.1","5.1.1.5"}', true, '5.1.1.5', '{"cost_of_sales","inventory"}', 133),
  ('5cc9076887f13cb8a7a20087', '5.1.2', '5.1', '{"en": "Cost of services"}', '{"5","5.1","5.1.2"}', false, '5.1.2', '{}', 134),
  ('5cc9076887f13cb8a7a20088', '5.1.2.1', '5.1.2', '{"en": "Subcontractor costs"}', '{"5","5.1","5.1.2","5.1.2.1"}', true, '5.1.2.1', '{"cost_of_sales"}', 135),
  ('5cc9076887f13cb8a7a20089', '5.1.2.2', '5.1.2', '{"en": "Direct service costs"}', '{"5","5.1","5.1.2","5.1.2.2"}', true, '5.1.2.2', '{"cost_of_sales"}', 136),
  ('5cc9076887f13cb8a7a2008a', '5.2', '5', '{"en": "Operating expenses"}', '{"5","5.2"}', false, '5.2', '{}', 137),
  ('5cc9076887f13cb8a7a2008b', '5.2.1', '5.2', '{"en": "Employee costs"}', '{"5","5.2","5.2.1"}', false, '5.2.1', '{}', 138),
  ('5cc9076887f13cb8a7a2008c', '5.2.1.1', '5.2.1', '{"en": "Salaries and wages"}', '{"5","5.2","5.2.1","5.2.1.1"}', true, '5.2.1.1', '{"payroll"}', 139),
  ('5cc9076887f13cb8a7a2008d', '5.2.1.2', '5.2.1', '{"en": "Bonuses and commissions"}', '{"5","5.2","5.2.1","5.2.1.2"}', true, '5.2.1.2', '{"payroll"}', 140),
  ('5cc9076887f13cb8a7a2008e', '5.2.1.3', '5.2.1', '{"en": "Payroll taxes"}', '{"5","5.2","5.2.1","5.2.1.3"}', true, '5.2.1.3', '{"payroll","tax"}', 141),
  ('5cc9076887f13cb8a7a2008f', '5.2.1.4', '5.2.1', '{"en": "Employee benefits"}', '{"5","5.2","5.2.1","5.2.1.4"}', true, '5.2.1.4', '{"payroll"}', 142),
  ('5cc9076887f13cb8a7a20090', '5.2.1.5', '5.2.1', '{"en": "Pension costs"}', '{"5","5.2","5.2.1","5.2.1.5"}', true, '5.2.1.5', '{"payroll"}', 143),
  ('5cc9076887f13cb8a7a20091', '5.2.2', '5.2', '{"en": "Occupancy"}', '{"5","5.2","5.2.2"}', false, '5.2.2', '{}', 144),
  ('5cc9076887f13cb8a7a20092', '5.2.2.1', '5.2.2', '{"en": "Rent"}', '{"5","5.2","5.2.2","5.2.2.1"}', true, '5.2.2.1', '{"leases"}', 145),
  ('5cc9076887f13cb8a7a20093', '5.2.2.2', '5.2.2', '{"en": "Utilities"}', '{"5","5.2","5.2.2","5.2.2.2"}', true, '5.2.2.2', '{}', 146),
  ('5cc9076887f13cb8a7a20094', '5.2.2.3', '5.2.2', '{"en": "Repairs and maintenance"}', '{"5","5.2","5.2.2","5.2.2.3"}', true, '5.2.2.3', '{}', 147),
  ('5cc9076887f13cb8a7a20095', '5.2.3', '5.2', '{"en": "Selling and marketing"}', '{"5","5.2","5.2.3"}', false, '5.2.3', '{}', 148),
  ('5cc9076887f13cb8a7a20096', '5.2.3.1', '5.2.3', '{"en": "Advertising and promotion"}', '{"5","5.2","5.2.3","5.2.3.1"}', true, '5.2.3.1', '{}', 149),
  ('5cc9076887f13cb8a7a20097', '5.2.3.2', '5.2.3', '{"en": "Travel and entertainment"}', '{"5","5.2","5.2.3","5.2.3.2"}', true, '5.2.3.2', '{}', 150),
  ('5cc9076887f13cb8a7a20098', '5.2.4', '5.2', '{"en": "General and administrative"}', '{"5","5.2","5.2.4"}', false, '5.2.4', '{}', 151),
  ('5cc9076887f13cb8a7a20099', '5.2.4.1', '5.2.4', '{"en": "Office supplies"}', '{"5","5.2","5.2.4","5.2.4.1"}', true, '5.2.4.1', '{}', 152),
  ('5cc9076887f13cb8a7a2009a', '5.2.4.2', '5.2.4', '{"en": "Professional fees"}', '{"5","5.2","5.2.4","5.2.4.2"}', true, '5.2.4.2', '{}', 153),
  ('5cc9076887f13cb8a7a2009b', '5.2.4.3', '5.2.4', '{"en": "Insurance"}', '{"5","5.2","5.2.4","5.2.4.3"}', true, '5.2.4.3', '{}', 154),
  ('5cc9076887f13cb8a7a2009c', '5.2.4.4', '5.2.4', '{"en": "Telecommunications and IT"}', '{"5","5.2","5.2.4","5.2.4.4"}', true, '5.2.4.4', '{}', 155),
  ('5cc9076887f13cb8a7a2009d', '5.2.4.5', '5.2.4', '{"en": "Bank charges"}', '{"5","5.2","5.2.4","5.2.4.5"}', true, '5.2.4.5', '{"finance_costs"}', 156),
  ('5cc9076887f13cb8a7a2009e', '5.2.4.6', '5.2.4', '{"en": "Bad debt expense"}', '{"5","5.2","5.2.4","5.2.4.6"}', true, '5.2.4.6', '{"accounts_receivable"}', 157),
  ('5cc9076887f13cb8a7a2009f', '5.2.4.7', '5.2.4', '{"en": "Other administrative expenses"}', '{"5","5.2","5.2.4","5.2.4.7"}', true, '5.2.4.7', '{}', 158),
  ('5cc9076887f13cb8a7a200a0', '5.2.5', '5.2', '{"en": "Depreciation, amortization and impairment"}', '{"5","5.2","5.2.5"}', false, '5.2.5', '{}', 159),
  ('5cc9076887f13cb8a7a200a1', '5.2.5.1', '5.2.5', '{"en": "Depreciation"}', '{"5","5.2","5.2.5","5.2.5.1"}', true, '5.2.5.1', '{"depreciation"}', 160),
  ('5cc9076887f13cb8a7a200a2', '5.2.5.2', '5.2.5', '{"en": "Amortization"}', '{"5","5.2","5.2.5","5.2.5.2"}', true, '5.2.5.2', '{"amortization"}', 161),
  ('5cc9076887f13cb8a7a200a3', '5.2.5.3', '5.2.5', '{"en": "Impairment losses"}', '{"5","5.2","5.2.5","5.2.5.3"}', true, '5.2.5.3', '{"impairment"}', 162),
  ('5cc9076887f13cb8a7a200a4', '5.3', '5', '{"en": "Other expenses"}', '{"5","5.3"}', false, '5.3', '{}', 163),
  ('5cc9076887f13cb8a7a200a5', '5.3.1', '5.3', '{"en": "Finance costs"}', '{"5","5.3","5.3.1"}', false, '5.3.1', '{}', 164),
  ('5cc9076887f13cb8a7a200a6', '5.3.1.1', '5.3.1', '{"en": "Interest expense"}', '{"5","5.3","5.3.1","5.3.1.1"}', true, '5.3.1.1', '{"finance_costs","debt"}', 165),
  ('5cc9076887f13cb8a7a200a7', '5.3.1.2', '5.3.1', '{"en": "Lease interest"}', '{"5","5.3","5.3.1","5.3.1.2"}', true, '5.3.1.2', '{"finance_costs","leases"}', 166),
  ('5cc9076887f13cb8a7a200a8', '5.3.2', '5.3', '{"en": "Losses"}', '{"5","5.3","5.3.2"}', false, '5.3.2', '{}', 167),
  ('5cc9076887f13cb8a7a200a9', '5.3.2.1', '5.3.2', '{"en": "Loss on disposal of assets"}', '{"5","5.3","5.3.2","5.3.2.1"}', true, '5.3.2.1', '{"fixed_assets"}', 168),
  ('5cc9076887f13cb8a7a200aa', '5.3.2.2', '5.3.2', '{"en": "Foreign exchange losses"}', '{"5","5.3","5.3.2","5.3.2.2"}', true, '5.3.2.2', '{"foreign_exchange"}', 169),
  ('5cc9076887f13cb8a7a200ab', '5.3.2.3', '5.3.2', '{"en": "Other losses"}', '{"5","5.3","5.3.2","5.3.2.3"}', true, '5.3.2.3', '{}', 170),
  ('5cc9076887f13cb8a7a200ac', '5.4', '5', '{"en": "Income taxes"}', '{"5","5.4"}', false, '5.4', '{}', 171),
  ('5cc9076887f13cb8a7a200ad', '5.4.1', '5.4', '{"en": "Income tax expense"}', '{"5","5.4","5.4.1"}', false, '5.4.1', '{}', 172),
  ('5cc9076887f13cb8a7a200ae', '5.4.1.1', '5.4.1', '{"en": "Current income tax"}', '{"5","5.4","5.4.1","5.4.1.1"}', true, '5.4.1.1', '{"tax"}', 173),
  ('5cc9076887f13cb8a7a200af', '5.4.1.2', '5.4.1', '{"en": "Deferred income tax"}', '{"5","5.4","5.4.1","5.4.1.2"}', true, '5.4.1.2', '{"tax"}', 174)
) AS v(id, code, parent_code, description, hierarchy, lowest_level, mac_code, account_tags, order_index);

-- Engagements that exist before this migration get their copy of the system grouping, as new ones do.
CREATE TEMPORARY TABLE backfill_engagement_grouping ON COMMIT DROP AS
SELECT e.id AS engagement_id, substr(md5(random()::text || e.id || clock_timestamp()::text), 1, 24) AS id
FROM engagement e;

INSERT INTO engagement_account_grouping (id, created_user_name, last_modified_user_name, engagement_id, account_grouping_id, name, code_display_name, delimiter, mac)
SELECT b.id, 'system', 'system', b.engagement_id, g.id, g.name, g.code_display_name, g.delimiter, g.mac
FROM backfill_engagement_grouping b CROSS JOIN account_grouping g WHERE g.id = '5cc9076887f13cb8a7a19300';

INSERT INTO engagement_account_group (id, created_user_name, last_modified_user_name, engagement_account_grouping_id, code, parent_code, description, hierarchy, lowest_level, mac_code, account_tags, order_index, errors, origin)
SELECT substr(md5(random()::text || b.id || a.id || clock_timestamp()::text), 1, 24), 'system', 'system', b.id, a.code, a.parent_code, a.description, a.hierarchy, a.lowest_level, a.mac_code, a.account_tags, a.order_index, a.errors, 'IMPORTED_FROM_LIBRARY'
FROM backfill_engagement_grouping b CROSS JOIN account_group a WHERE a.account_grouping_id = '5cc9076887f13cb8a7a19300';
