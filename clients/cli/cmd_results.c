/* results: the summary (table or --json), history.csv (--csv), VTUs into a folder (--vtu DIR,
 * with a results.pvd collection), the fields of one increment (--fields N). */
#include "client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int mkdir_p(const char *dir) {
  char tmp[1024], *p;
  snprintf(tmp, sizeof tmp, "%s", dir);
  for (p = tmp + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  return mkdir(tmp, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static int get_raw(const dc_settings *s, const char *path, const char *what, dc_resp *r) {
  int rc = dc_request(s, "GET", path, NULL, NULL, 0, r);
  if (rc) return rc;
  if (r->status != 200) {
    rc = dc_report_http_error(s, r, what);
    dc_resp_free(r);
  }
  return rc;
}

static int results_vtu(const dc_settings *s, const char *id, const char *dir, long only) {
  char path[256], file[1400];
  json_t *list = NULL, *it;
  FILE *pvd = NULL;
  size_t k;
  int rc, n = 0;
  dc_resp r;
  snprintf(path, sizeof path, "/v1/jobs/%s/results/increments", id);
  rc = dc_api(s, "GET", path, NULL, NULL, 0, "increment list", &list);
  if (rc) goto cleanup;
  if (mkdir_p(dir) != 0) {
    fprintf(stderr, "ductile: cannot create %s: %s\n", dir, strerror(errno));
    rc = DC_EXIT_LOCAL;
    goto cleanup;
  }
  snprintf(file, sizeof file, "%s/results.pvd", dir);
  pvd = fopen(file, "w");
  if (!pvd) {
    fprintf(stderr, "ductile: cannot write %s: %s\n", file, strerror(errno));
    rc = DC_EXIT_LOCAL;
    goto cleanup;
  }
  fprintf(
      pvd,
      "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n");
  json_array_foreach(json_object_get(list, "items"), k, it) {
    long inc = (long)dc_jnum(it, "n", 0);
    if (!json_is_string(json_object_get(it, "vtu")) || (only > 0 && inc != only)) continue;
    snprintf(path, sizeof path, "/v1/jobs/%s/results/increments/%ld/vtu", id, inc);
    rc = get_raw(s, path, "VTU download", &r);
    if (rc) goto cleanup;
    snprintf(file, sizeof file, "%s/increment_%04ld.vtu", dir, inc);
    rc = dc_write_file(file, r.body, r.len);
    dc_resp_free(&r);
    if (rc) goto cleanup;
    fprintf(pvd, "    <DataSet timestep=\"%.17g\" file=\"increment_%04ld.vtu\"/>\n",
            dc_jnum(it, "time", 0), inc);
    if (!s->json && !s->quiet) printf("%s\n", file);
    n++;
  }
  fprintf(pvd, "  </Collection>\n</VTKFile>\n");
  if (n == 0) {
    fprintf(stderr,
            "ductile: job %s has no VTU files%s (set \"output\": {\"vtu\": true} in the job)\n", id,
            only > 0 ? " for that increment" : "");
    rc = DC_EXIT_NOTFOUND;
  } else if (s->json) {
    printf("{\"job\": \"%s\", \"dir\": \"%s\", \"files\": %d}\n", id, dir, n);
  }
cleanup:
  if (pvd) fclose(pvd);
  json_decref(list);
  return rc;
}

static void print_summary(const json_t *sum) {
  const json_t *incs = json_object_get(sum, "increments"), *it, *mon;
  const char *key;
  json_t *v;
  size_t k;
  printf("%s: %s (%s)\n", dc_jstr(sum, "title", ""), dc_jstr(sum, "reason", "?"),
         dc_jstr(sum, "message", ""));
  printf("%4s %4s %12s %7s %6s %10s", "STEP", "INC", "LOAD_FACTOR", "NEWTON", "PCG", "RESIDUAL");
  it = json_array_get(incs, 0);
  json_object_foreach((json_t *)json_object_get(it, "monitors"), key, v) printf(" %14s", key);
  printf("\n");
  json_array_foreach(incs, k, it) {
    printf("%4.0f %4.0f %12.6g %7.0f %6.0f %10.3e", dc_jnum(it, "step", 0),
           dc_jnum(it, "increment", 0), dc_jnum(it, "load_factor", 0),
           dc_jnum(it, "newton_iterations", 0), dc_jnum(it, "pcg_iterations", 0),
           dc_jnum(it, "residual", 0));
    mon = json_object_get(it, "monitors");
    json_object_foreach((json_t *)mon, key, v) printf(" %14.6e", json_number_value(v));
    printf("\n");
  }
}

int dc_cmd_results(const dc_settings *s, int argc, char **argv) {
  const char *id = NULL, *vtu = NULL, *out = NULL;
  int csv = 0, json = s->json, i, rc;
  long fields = 0, inc = 0;
  char path[256];
  json_t *doc = NULL;
  dc_resp r;
  for (i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--csv") == 0)
      csv = 1;
    else if (strcmp(argv[i], "--json") == 0)
      json = 1;
    else if (strcmp(argv[i], "--vtu") == 0 && i + 1 < argc)
      vtu = argv[++i];
    else if (strcmp(argv[i], "--fields") == 0 && i + 1 < argc)
      fields = atol(argv[++i]);
    else if (strcmp(argv[i], "--increment") == 0 && i + 1 < argc)
      inc = atol(argv[++i]);
    else if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && i + 1 < argc)
      out = argv[++i];
    else if (argv[i][0] == '-' || id) {
      fprintf(stderr, "ductile results: unexpected argument '%s'\n", argv[i]);
      return DC_EXIT_USAGE;
    } else
      id = argv[i];
  }
  if (!id || (csv + (vtu != NULL) + (fields > 0)) > 1) {
    fprintf(stderr, "usage: ductile results JOB_ID [--json | --csv | --vtu DIR [--increment N] | "
                    "--fields N] [-o FILE]\n");
    return DC_EXIT_USAGE;
  }
  if (!dc_valid_id(id, 'j')) {
    fprintf(stderr, "ductile results: '%s' is not a job id (j- and 16 hex digits)\n", id);
    return DC_EXIT_NOTFOUND;
  }
  if (vtu) return results_vtu(s, id, vtu, inc);
  if (csv)
    snprintf(path, sizeof path, "/v1/jobs/%s/results/history.csv", id);
  else if (fields > 0)
    snprintf(path, sizeof path, "/v1/jobs/%s/results/increments/%ld", id, fields);
  else
    snprintf(path, sizeof path, "/v1/jobs/%s/results", id);
  rc = get_raw(s, path, csv ? "history.csv" : fields > 0 ? "increment fields" : "results", &r);
  if (rc) return rc;
  if (out) {
    rc = dc_write_file(out, r.body, r.len);
  } else if (csv || json || fields > 0) {
    fwrite(r.body, 1, r.len, stdout);
    if (r.len && r.body[r.len - 1] != '\n') fputc('\n', stdout);
  } else {
    json_error_t jerr;
    doc = json_loadb(r.body, r.len, 0, &jerr);
    if (!doc) {
      fprintf(stderr, "ductile: results: the server's answer is not JSON: %s\n", jerr.text);
      rc = DC_EXIT_SERVER;
    } else {
      print_summary(doc);
    }
  }
  json_decref(doc);
  dc_resp_free(&r);
  return rc;
}
