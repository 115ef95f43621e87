/* A job's directories in the data directory. jobs/<id>/ holds the job's document (job.json, or
 * job.inp for a deck); each attempt (one run of the job, numbered by the store's claim: attempts)
 * writes into a directory of its own, jobs/<id>/attempt-<n>/: the solver's results in out/ and
 * its checkpoint, checkpoint.ckpt, and nothing anywhere else.
 *
 * Why one per attempt: with several daemons on one store, a run whose daemon was paused (or away
 * from the database) past its lease goes on for up to a second once it continues, until its next
 * lease renewal or event tells it that another run has the job. In a directory shared by the
 * attempts, what it writes meanwhile (a fields file, its checkpoint and the rename of it, the
 * summary it writes as it stops) lands among the files of the run that took the job over. A
 * check before each write cannot close that gap, since the process may stop between the check
 * and the write; a directory of its own does: what a stale run writes stays where nobody reads.
 *
 * The store names the attempt whose directory holds the job's results (jobs.results_attempt):
 * the results routes serve that one, and the next attempt starts from it. A new attempt copies
 * its checkpoint (first: every result the checkpoint counts was written before it, so it is in
 * the copy) and its out/ into its own directory (dt_job_dir_adopt), then takes the results over
 * in the store (dt_job_publish), which succeeds only while the job is still running in that
 * attempt. Files written once, through a rename, and never changed in place (fields_NNNN.json,
 * increment_NNNN.vtu, increment_NNNN_points.vtu) are hard links rather than copies, so a resumed
 * job does not copy its VTUs; the others (history.csv, energy.csv, results.frd, ...) are
 * rewritten or appended to in place by the resumed run, and are copied. When the job's end is
 * recorded, the other attempts' directories and the checkpoint are removed (dt_job_dirs_prune).
 *
 * Jobs that ran before schema version 9 have their out/ and checkpoint.ckpt in jobs/<id>/
 * itself: "attempt 0" below, served and resumed from as before. */
#ifndef DT_SRV_JOB_DIRS_H
#define DT_SRV_JOB_DIRS_H

#include <stddef.h>

#include "status.h"

/* The directory of attempt `attempt` of job id (0: jobs/<id> itself) into out (cap bytes). */
void dt_job_dir(char *out, size_t cap, const char *data_dir, const char *id, int attempt);

/* Create the directory `to` of a new attempt and its out/, holding the checkpoint and results of
 * the directory `from` of the attempt it starts from (which may have neither, or not exist).
 * DT_ERR_IO when a file cannot be copied (ctx names it); the copies made so far stay. */
dt_status dt_job_dir_adopt(const char *from, const char *to, dt_ctx *ctx);

/* The job's end is recorded: remove the directories of its attempts other than keep (and, for
 * keep > 0, the files of before version 9 in jobs/<id>/ itself) and keep's checkpoint, which
 * nothing will resume. Best effort, as dt_remove_tree (data_files.h). */
void dt_job_dirs_prune(const char *data_dir, const char *id, int keep);

/* The bytes the job stores once it has ended with the results of `attempt`: its own files
 * (jobs/<id>/job.json) and that attempt's directory (max_user_stored_bytes). */
long long dt_job_dir_bytes(const char *data_dir, const char *id, int attempt);

#endif
