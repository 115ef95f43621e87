/* Small helpers shared by the handlers: ids and counts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers.h"

int dt_id_valid(const char *id, char prefix) {
  if (!id || strlen(id) != 18 || id[0] != prefix || id[1] != '-') return 0;
  for (int i = 2; i < 18; i++)
    if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f'))) return 0;
  return 1;
}

int dt_id_new(char *out, char prefix) {
  char hex[17];
  if (dt_random_hex(hex, 8)) return -1;
  snprintf(out, 19, "%c-%s", prefix, hex);
  return 0;
}

int dt_parse_count(const char *s, long long lo, long long hi, long long *out) {
  char *end = NULL;
  long long v;
  if (!s || !*s || strlen(s) > 19) return -1;
  for (const char *p = s; *p; p++)
    if (*p < '0' || *p > '9') return -1;
  errno = 0;
  v = strtoll(s, &end, 10);
  if (errno || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

int dt_id_or_reply(dt_req *r, const char *id, char prefix, const char *what) {
  if (dt_id_valid(id, prefix)) return 0;
  dt_reply_error(r, 404, "not_found", NULL, "no %s with this id", what);
  return -1;
}
