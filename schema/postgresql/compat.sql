-- The SQLite functions ductiled's SQL uses, as PostgreSQL functions of the same name and
-- meaning, so that one text of each query and migration serves both stores (server/store.h).
-- Created (or replaced) by the store before it applies migrations; not a migration itself,
-- since it must hold for every schema version.
--
-- Timestamps are text, UTC ISO 8601 with milliseconds ('2026-01-31T12:00:00.000Z'), as the
-- daemon writes them, and compare as text: the database has C collation (docs/operations.md).
-- 'now' is the statement's time, as in SQLite.
CREATE OR REPLACE FUNCTION ductile_ts(t text) RETURNS timestamptz
  LANGUAGE sql STABLE AS $$ SELECT CASE WHEN t = 'now' THEN statement_timestamp() ELSE t::timestamptz END $$;

-- julianday(t): days since noon in Greenwich on November 24, 4714 B.C., as a double.
CREATE OR REPLACE FUNCTION julianday(t text) RETURNS double precision
  LANGUAGE sql STABLE AS $$ SELECT extract(epoch FROM ductile_ts(t))::double precision / 86400.0 + 2440587.5 $$;

-- strftime('%Y-%m-%dT%H:%M:%fZ', t [, modifier]): the one format the queries use; a modifier
-- is an interval ('-3600 seconds').
CREATE OR REPLACE FUNCTION strftime(fmt text, t text) RETURNS text
  LANGUAGE sql STABLE AS $$ SELECT to_char(ductile_ts(t) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;
CREATE OR REPLACE FUNCTION strftime(fmt text, t text, modifier text) RETURNS text
  LANGUAGE sql STABLE AS $$ SELECT to_char((ductile_ts(t) + modifier::interval) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

-- SQLite's scalar min(a, b) and max(a, b) (NULL when either is), beside the aggregates.
CREATE OR REPLACE FUNCTION min(a double precision, b double precision) RETURNS double precision
  LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE LEAST(a, b) END $$;
CREATE OR REPLACE FUNCTION max(a double precision, b double precision) RETURNS double precision
  LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE GREATEST(a, b) END $$;
