-- Version 9: one directory per attempt. Each run of a job (an attempt: attempts counts them)
-- writes its results and checkpoint into jobs/<id>/attempt-<n>/ (out/, checkpoint.ckpt) and
-- nowhere else, so that a run that lost its lease (its daemon paused or away from the database
-- past lease_seconds) and goes on for a moment cannot touch the files of the run that took the
-- job over. results_attempt is the attempt whose directory the results routes serve and the next
-- attempt resumes from: a run sets it to its own attempt once it has copied the files of the one
-- before, only while the job is still running in that attempt. NULL: no attempt has prepared its
-- directory yet, or the job ran before this version and its files are in jobs/<id>/ itself.
ALTER TABLE jobs ADD COLUMN results_attempt INTEGER;
