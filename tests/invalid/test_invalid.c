/* Invalid-job driver: for every line "file<TAB>substring" of DIR/expected.tsv, parse DIR/file
 * and require DT_ERR_INPUT, no model, and the substring in the message. Also requires every
 * *.json in DIR to be listed, so a new case cannot be forgotten. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "io/job_json.h"

#define MAX_CASES 512

static char listed[MAX_CASES][256];
static int n_listed = 0;

static int check_case(const char *dir, const char *file, const char *expect) {
  char path[4096];
  dt_ctx ctx = {0};
  dt_model *m = NULL;
  dt_status rc;

  snprintf(path, sizeof path, "%s/%s", dir, file);
  rc = dt_parse_job_file(path, &m, &ctx);
  if (rc != DT_ERR_INPUT || m != NULL) {
    fprintf(stderr, "FAIL %s: expected DT_ERR_INPUT, got %s: %s\n", file, dt_status_name(rc),
            ctx.msg);
    dt_model_destroy(&m);
    return 1;
  }
  if (strstr(ctx.msg, expect) == NULL) {
    fprintf(stderr, "FAIL %s:\n  message:  %s\n  expected: %s\n", file, ctx.msg, expect);
    return 1;
  }
  printf("ok   %-32s %s\n", file,
         ctx.msg + (strlen(path) > strlen(file) ? strlen(path) - strlen(file) : 0));
  return 0;
}

static int check_all_listed(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e = NULL;
  int fail = 0;

  if (!d) return 1;
  while ((e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    int found = 0;
    if (n < 5 || strcmp(e->d_name + n - 5, ".json") != 0) continue;
    for (int i = 0; i < n_listed && !found; i++) found = strcmp(listed[i], e->d_name) == 0;
    if (!found) {
      fprintf(stderr, "FAIL %s is not listed in expected.tsv\n", e->d_name);
      fail = 1;
    }
  }
  closedir(d);
  return fail;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  char path[1024], line[2048];
  FILE *f = NULL;
  int fail = 0;

  snprintf(path, sizeof path, "%s/expected.tsv", dir);
  f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return 1;
  }
  while (fgets(line, sizeof line, f)) {
    char *tab = strchr(line, '\t'), *nl = strchr(line, '\n');
    if (line[0] == '#' || tab == NULL) continue;
    if (nl) *nl = '\0';
    *tab = '\0';
    if (n_listed < MAX_CASES && strlen(line) < sizeof listed[0]) strcpy(listed[n_listed++], line);
    fail |= check_case(dir, line, tab + 1);
  }
  fclose(f);
  fail |= check_all_listed(dir);
  printf("%d invalid jobs checked\n", n_listed);
  return fail;
}
