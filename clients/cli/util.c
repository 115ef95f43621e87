/* Small helpers: files, JSON access and printing, ids. */
#include "client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dc_read_file(const char *path, char **out, size_t *len) {
  int rc = DC_EXIT_LOCAL;
  FILE *fp = fopen(path, "rb");
  char *p = NULL;
  long n;
  *out = NULL;
  *len = 0;
  if (!fp) {
    fprintf(stderr, "ductile: cannot open %s: %s\n", path, strerror(errno));
    goto cleanup;
  }
  if (fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) != 0) {
    fprintf(stderr, "ductile: cannot read %s: %s\n", path, strerror(errno));
    goto cleanup;
  }
  p = malloc((size_t)n + 1);
  if (!p) {
    fprintf(stderr, "ductile: out of memory reading %s\n", path);
    goto cleanup;
  }
  if (fread(p, 1, (size_t)n, fp) != (size_t)n) {
    fprintf(stderr, "ductile: cannot read %s: %s\n", path, strerror(errno));
    goto cleanup;
  }
  p[n] = '\0';
  *out = p;
  *len = (size_t)n;
  p = NULL;
  rc = DC_EXIT_OK;
cleanup:
  free(p);
  if (fp) fclose(fp);
  return rc;
}

int dc_write_file(const char *path, const char *data, size_t len) {
  FILE *fp = fopen(path, "wb");
  if (!fp) {
    fprintf(stderr, "ductile: cannot write %s: %s\n", path, strerror(errno));
    return DC_EXIT_LOCAL;
  }
  if (fwrite(data, 1, len, fp) != len || fclose(fp) != 0) {
    fprintf(stderr, "ductile: cannot write %s: %s\n", path, strerror(errno));
    return DC_EXIT_LOCAL;
  }
  return DC_EXIT_OK;
}

void dc_print_json(const json_t *j) {
  char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
  if (s) {
    fputs(s, stdout);
    fputc('\n', stdout);
    free(s);
  }
  fflush(stdout);
}

const char *dc_jstr(const json_t *obj, const char *key, const char *dflt) {
  const json_t *v = obj ? json_object_get(obj, key) : NULL;
  return json_is_string(v) ? json_string_value(v) : dflt;
}

double dc_jnum(const json_t *obj, const char *key, double dflt) {
  const json_t *v = obj ? json_object_get(obj, key) : NULL;
  return json_is_number(v) ? json_number_value(v) : dflt;
}

/* "j-" / "m-" and 16 lowercase hex digits, as the daemon's ids. */
int dc_valid_id(const char *id, char prefix) {
  int i;
  if (!id || id[0] != prefix || id[1] != '-' || strlen(id) != 18) return 0;
  for (i = 2; i < 18; i++)
    if (!strchr("0123456789abcdef", id[i])) return 0;
  return 1;
}

int dc_job_exit(const char *state) {
  return state && strcmp(state, "succeeded") == 0 ? DC_EXIT_OK : DC_EXIT_JOB;
}
