-- Version 2: which token submitted a job (its owner is jobs.owner_id, the token's user). The
-- API reports owner (users.name) and owner_token (tokens.name) and filters with ?owner=.
-- Jobs from version 1 keep token_id NULL (owner_token null).
ALTER TABLE jobs ADD COLUMN token_id TEXT;
CREATE INDEX jobs_owner ON jobs(owner_id, seq);
