-- Version 4: fair sharing (issue 30). busy_seconds is the worker time a job has used, summed
-- over its attempts and recorded as each attempt ends; the scheduler sums it per user over a
-- sliding window (fair_share_window) and runs next a job of the user who used the least.
-- Jobs that ended before this version are counted from their timestamps.
ALTER TABLE jobs ADD COLUMN busy_seconds REAL NOT NULL DEFAULT 0;
UPDATE jobs SET busy_seconds = MAX(0, (julianday(finished_at) - julianday(started_at)) * 86400.0)
  WHERE finished_at IS NOT NULL AND started_at IS NOT NULL;
-- The window's usage is a range of recently finished jobs, not a scan of the whole history.
CREATE INDEX jobs_finished ON jobs(finished_at);
-- Each user's next job (and its count of active jobs, max_active_jobs_per_user) is a range of
-- this index.
CREATE INDEX jobs_user_queue ON jobs(state, owner_id, priority DESC, seq);
