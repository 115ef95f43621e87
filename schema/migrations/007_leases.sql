-- Version 7: leases (issue 34). Several daemons may share one PostgreSQL store and its queue: the
-- daemon whose worker claims a job holds the job's lease (lease_owner: the daemon's instance
-- name; lease_expires: when the lease ends unless renewed, UTC ISO 8601 like the other times) and
-- renews it while the job runs. A running job whose lease has ended (its daemon died or lost the
-- database) is queued again by any daemon and resumed from its checkpoint. With SQLite, one
-- daemon owns the store: the columns are written at the claim and start-up recovery works as
-- before.
ALTER TABLE jobs ADD COLUMN lease_owner TEXT;
ALTER TABLE jobs ADD COLUMN lease_expires TEXT;
-- The running jobs whose lease has ended: a range of this index.
CREATE INDEX jobs_lease ON jobs(state, lease_expires);
