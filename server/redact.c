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

void dt_redact_paths(char *s, size_t n, const char *data_dir, const char *job_id) {
  char prefix[4200];
  if (!data_dir || !data_dir[0]) return;
  if (job_id) {
    snprintf(prefix, sizeof prefix, "%s/jobs/%s/", data_dir, job_id);
    dt_text_replace(s, n, prefix, "");
  }
  snprintf(prefix, sizeof prefix, "%s/", data_dir);
  dt_text_replace(s, n, prefix, "");
  dt_text_replace(s, n, data_dir, "the data directory");
}
