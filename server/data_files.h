/* Files of the data directory that rows of the store name: meshes/<id>.json or .msh (a mesh
 * row's path) and jobs/<id>/ (a job row: its document, checkpoint and results).
 *
 * A file is written before its row is inserted, and a row is deleted before its files, so that
 * no row ever names a missing file; a crash between the two leaves a file no row names (a mesh
 * renamed into place whose insert never ran, the directory of a job refused or deleted). Nothing
 * would ever remove it, so start-up does (dt_data_sweep), before workers and requests can
 * create new files, and logs each one. */
#ifndef DT_SRV_DATA_FILES_H
#define DT_SRV_DATA_FILES_H

#include "status.h"

/* Remove dir and everything under it, not following symbolic links; what cannot be removed
 * stays (best effort: the caller has already given the files up). */
void dt_remove_tree(const char *dir);

/* The bytes of the regular files in dir, with recurse also in its subdirectories (symbolic links
 * not followed); 0 for a directory that does not exist. */
long long dt_dir_bytes(const char *dir, int recurse);

/* Start-up: remove every entry of <data_dir>/meshes that no mesh row names as its path, and of
 * <data_dir>/jobs that is not the directory of a job row; *removed receives how many, each
 * logged with its path; entries younger than min_age_s seconds stay (0: none; a data directory
 * shared by several daemons, whose uploads may be between their file and their row). DT_ERR_DB
 * when the store cannot be read (nothing more is removed). */
dt_status dt_data_sweep(const char *data_dir, long min_age_s, int *removed, dt_ctx *ctx);

#endif
