/* Text for clients without the server's paths. Error messages of the solver and of file
 * operations name the files they could not read or write, under the data directory; a client
 * (any user of a shared daemon) must not learn where that is. Replies, job errors and events
 * get the text with those paths made relative; the log keeps them whole. */
#ifndef DT_SRV_REDACT_H
#define DT_SRV_REDACT_H

#include <stddef.h>

/* Replace every occurrence of from in s (capacity n, at most 2 KiB of result) by to. */
void dt_text_replace(char *s, size_t n, const char *from, const char *to);

/* The data directory's paths in s (capacity n) for a client: those under the job's directory
 * relative to it, or to its attempt's ("<data>/jobs/<job>/attempt-2/out/history.csv" ->
 * "out/history.csv"; job_id may be NULL), the others relative to the data directory ("<data>/meshes/m-….msh" ->
 * "meshes/m-….msh"), and the directory itself "the data directory". data_dir is absolute (the
 * daemon resolves it at start-up), so no other word of the message can match it. */
void dt_redact_paths(char *s, size_t n, const char *data_dir, const char *job_id);

#endif
