-- Version 5: the audit log (issue 30): who did what, and when. Job submissions, cancellations
-- and deletions through the API; users added, disabled and enabled, tokens created and revoked
-- and backups taken from the command line; the first start's admin user and token. A row is
-- written in the transaction of the change it records, so the log and the state agree; only
-- changes that took effect are recorded (a refused request is in the daemon's log). ductiled
-- never updates or deletes a row. Read with `ductiled admin audit` or GET /v1/audit (admins).
CREATE TABLE audit (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,  -- order, and the cursor of GET /v1/audit
  ts          TEXT NOT NULL,                      -- UTC ISO 8601 with milliseconds
  via         TEXT NOT NULL CHECK (via IN ('api', 'cli', 'daemon')),
  actor       TEXT NOT NULL,   -- api: the token's user; cli: the user who ran the command (sudo's
                               -- caller, SUDO_USER, else the Unix user); daemon: 'ductiled'
  unix_user   TEXT,            -- cli: the Unix user the command ran as (sudo -u ductile ...)
  token_id    TEXT,            -- api: the token of the request
  request_id  TEXT,            -- api: the request's X-Request-Id (req= in the daemon's log)
  address     TEXT,            -- api: the client's address (a reverse proxy's, behind one)
  action      TEXT NOT NULL,   -- job.submit, job.cancel, job.delete, user.add, user.disable,
                               -- user.enable, token.create, token.revoke, store.backup
  target      TEXT,            -- the job id, user name, token id or backup file
  owner       TEXT,            -- the user whose job or token it is (NULL for users, backups)
  details     TEXT             -- JSON object, or NULL
);
-- What happened to one job, token or user: a range of this index.
CREATE INDEX audit_target ON audit(target, seq);
