-- ductiled store, version 1. Timestamps are UTC ISO 8601 strings with milliseconds.
-- Users and roles exist from the start so that ownership, isolation and fair sharing can be
-- added without reshaping the tables: every token, mesh and job belongs to a user.

CREATE TABLE users (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,
  role        TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('admin', 'user')),
  share       REAL NOT NULL DEFAULT 1.0,          -- fair-share weight (scheduler, later)
  created_at  TEXT NOT NULL
);

-- Bearer tokens: "dt_<id>_<secret>"; only SHA-256(token) is stored.
CREATE TABLE tokens (
  id            TEXT PRIMARY KEY,
  user_id       INTEGER NOT NULL REFERENCES users(id),
  name          TEXT NOT NULL,
  hash          BLOB NOT NULL,
  created_at    TEXT NOT NULL,
  last_used_at  TEXT,
  revoked_at    TEXT
);

CREATE TABLE meshes (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,  -- listing order
  id          TEXT NOT NULL UNIQUE,
  owner_id    INTEGER NOT NULL REFERENCES users(id),
  name        TEXT,
  path        TEXT NOT NULL,                      -- relative to the data directory
  bytes       INTEGER NOT NULL,
  sha256      TEXT NOT NULL,
  dim         INTEGER NOT NULL,
  n_nodes     INTEGER NOT NULL,
  n_elements  INTEGER NOT NULL,
  created_at  TEXT NOT NULL
);

CREATE TABLE jobs (
  seq              INTEGER PRIMARY KEY AUTOINCREMENT, -- submission order (the queue order)
  id               TEXT NOT NULL UNIQUE,
  owner_id         INTEGER NOT NULL REFERENCES users(id),
  mesh_id          TEXT REFERENCES meshes(id) ON DELETE SET NULL,
  title            TEXT,
  state            TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  priority         INTEGER NOT NULL DEFAULT 0,        -- scheduler, later
  est_device_bytes INTEGER,                           -- admission by memory, later
  created_at       TEXT NOT NULL,
  started_at       TEXT,
  finished_at      TEXT,
  worker           INTEGER,
  attempts         INTEGER NOT NULL DEFAULT 0,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  n_steps          INTEGER NOT NULL DEFAULT 0,
  step             INTEGER,
  increment        INTEGER,
  newton_iter      INTEGER,
  residual         REAL,
  percent          REAL NOT NULL DEFAULT 0,
  increments_done  INTEGER NOT NULL DEFAULT 0,
  backend          TEXT,
  error_code       TEXT,
  message          TEXT,
  reason           TEXT,
  timings          TEXT,                              -- JSON object, from the run summary
  last_event_seq   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX jobs_queue ON jobs(state, priority, seq);
CREATE INDEX jobs_mesh ON jobs(mesh_id, state);

-- Per-job ordered, replayable events (SSE ids are seq).
CREATE TABLE events (
  job_id  TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  seq     INTEGER NOT NULL,
  ts      TEXT NOT NULL,
  type    TEXT NOT NULL,
  data    TEXT NOT NULL,
  PRIMARY KEY (job_id, seq)
) WITHOUT ROWID;

-- Converged increments with results on disk (the checkpoint record).
CREATE TABLE increments (
  job_id       TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  n            INTEGER NOT NULL,                     -- run-wide converged increment, 1-based
  step         INTEGER NOT NULL,                     -- 1-based
  increment    INTEGER NOT NULL,                     -- 1-based within the step
  load_factor  REAL NOT NULL,
  time         REAL NOT NULL,
  has_vtu      INTEGER NOT NULL,
  created_at   TEXT NOT NULL,
  PRIMARY KEY (job_id, n)
) WITHOUT ROWID;
