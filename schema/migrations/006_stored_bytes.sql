-- Version 6: per-user storage (issue 30). stored_bytes is what a job's directory holds when it
-- ends (its document or deck, checkpoint and results); with the meshes' bytes it is what a user
-- stores, which max_user_stored_bytes caps. Jobs that ended before this version count 0 until
-- they are deleted.
ALTER TABLE jobs ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
