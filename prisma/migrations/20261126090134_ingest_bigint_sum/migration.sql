-- A sum of bigints that stays a bigint (issue 15): the built-in sum(bigint) accumulates into a
-- 128-bit state allocated per group and returns numeric. Hashing a quarter of a million
-- transactions per million ledger lines, the two debit/credit sums of the transactions table cost
-- about as much as the grouping itself; with a by-value bigint state (int8pl, the + of bigint)
-- they cost a fraction of it. Overflow raises "bigint out of range" as the ::bigint cast of the
-- numeric sum did; the engine sums only non-negative values with it, so a partial sum cannot
-- overflow unless the total does.
CREATE AGGREGATE ingest.bigint_sum(bigint) (
  SFUNC = int8pl,
  STYPE = bigint,
  COMBINEFUNC = int8pl,
  PARALLEL = SAFE
);
