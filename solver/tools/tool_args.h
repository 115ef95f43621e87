/* Command-line helpers the benchmark tools share. */
#ifndef DT_TOOL_ARGS_H
#define DT_TOOL_ARGS_H

#include <stdlib.h>

/* Parse "1,2,4" into out (at most max values); the count, or -1 when s is not such a list. */
static inline int tool_int_list(const char *s, int *out, int max) {
  int n = 0;
  char *end;
  while (*s && n < max) {
    out[n++] = (int)strtol(s, &end, 10);
    if (end == s || (*end && *end != ',')) return -1;
    s = *end == ',' ? end + 1 : end;
  }
  return n > 0 ? n : -1;
}

#endif
