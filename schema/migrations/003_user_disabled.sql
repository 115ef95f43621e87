-- Version 3: users can be disabled (`ductiled admin user disable NAME`). A disabled user's
-- tokens stop authenticating and its open event streams end; its jobs and meshes stay, with
-- their owner. Roles ('admin', 'user') are in users.role since version 1.
ALTER TABLE users ADD COLUMN disabled_at TEXT;
-- Each user lists its own meshes newest first (isolation): one range of this index.
CREATE INDEX meshes_owner ON meshes(owner_id, seq);
