/* Paths out of the text clients read (see redact.h). */
#include "redact.h"

#include <stdio.h>
#include <string.h>

void dt_text_replace(char *s, size_t n, const char *from, const char *to) {
  char out[2200];
  size_t k = 0, fl = strlen(from), tl = strlen(to);
  const char *p = s, *q;
  if (!fl) return;
  while ((q = strstr(p, from)) && k + (size_t)(q - p) + tl < sizeof out) {
    memcpy(out + k, p, (size_t)(q - p));
    k += (size_t)(q - p);
    memcpy(out + k, to, tl);
    k += tl;
    p = q + fl;
  }
  snprintf(out + k, sizeof out - k, "%s", p);
  k = strlen(out);
  if (k >= n) k = n - 1;
  memcpy(s, out, k);
  s[k] = '\0';
}

/* "<prefix>attempt-<n>/" becomes "<prefix>" in s: a run's files named relative to its attempt's
 * directory (job_dirs.h), as clients know them ("out/history.csv", "checkpoint.ckpt") whichever
 * attempt wrote them. */
static void drop_attempt_dirs(char *s, const char *prefix) {
  static const char attempt[] = "attempt-";
  size_t pl = strlen(prefix), al = sizeof attempt - 1;
  char *q = s, *p;
  while ((q = strstr(q, prefix))) {
    q += pl;
    if (strncmp(q, attempt, al) != 0) continue;
    for (p = q + al; *p >= '0' && *p <= '9'; p++) {}
    if (p > q + al && *p == '/') memmove(q, p + 1, strlen(p + 1) + 1);
  }
}

void dt_redact_paths(char *s, size_t n, const char *data_dir, const char *job_id) {
  char prefix[4200];
  if (!data_dir || !data_dir[0]) return;
  if (job_id) {
    snprintf(prefix, sizeof prefix, "%s/jobs/%s/", data_dir, job_id);
    drop_attempt_dirs(s, prefix);
    dt_text_replace(s, n, prefix, "");
  }
  snprintf(prefix, sizeof prefix, "%s/", data_dir);
  dt_text_replace(s, n, prefix, "");
  dt_text_replace(s, n, data_dir, "the data directory");
}
