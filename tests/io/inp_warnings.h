/* The deck tests' warning collector: a dt_import_options callback that counts the importer's
 * warnings and keeps their text, one per line. */
#ifndef DT_TEST_INP_WARNINGS_H
#define DT_TEST_INP_WARNINGS_H

#include <stdio.h>
#include <string.h>

typedef struct {
  int n;
  char all[4096];
} warnings;

static inline void on_warn(const char *msg, void *user) {
  warnings *w = user;
  size_t k = strlen(w->all);
  w->n++;
  snprintf(w->all + k, sizeof w->all - k, "%s\n", msg);
}

#endif
