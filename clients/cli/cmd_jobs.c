/* submit, status, cancel, delete, health. */
#include "client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The job document of --job with "mesh_id" set (and "mesh" removed). */
static int job_with_mesh(const char *job_path, const char *mesh_id, char **body, size_t *len) {
  json_error_t jerr;
  json_t *job = json_load_file(job_path, JSON_REJECT_DUPLICATES, &jerr);
  if (!job || !json_is_object(job)) {
    fprintf(stderr, "ductile: %s:%d:%d: not a JSON job: %s\n", job_path, jerr.line, jerr.column,
            job ? "not an object" : jerr.text);
    json_decref(job);
    return DC_EXIT_LOCAL;
  }
  json_object_del(job, "mesh");
  json_object_set_new(job, "mesh_id", json_string(mesh_id));
  *body = json_dumps(job, JSON_COMPACT | JSON_REAL_PRECISION(17));
  *len = *body ? strlen(*body) : 0;
  json_decref(job);
  return *body ? DC_EXIT_OK : DC_EXIT_LOCAL;
}

int dc_cmd_submit(const dc_settings *s, int argc, char **argv) {
  const char *file = NULL, *job_path = NULL, *ctype = "application/json", *what = "submit";
  char mesh_id[64] = "", *body = NULL;
  size_t len = 0;
  int wait = 0, i, rc;
  json_t *job = NULL, *final = NULL;
  for (i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--wait") == 0)
      wait = 1;
    else if (strcmp(argv[i], "--job") == 0 && i + 1 < argc)
      job_path = argv[++i];
    else if (argv[i][0] == '-' || file) {
      fprintf(stderr, "ductile submit: unexpected argument '%s'\n", argv[i]);
      return DC_EXIT_USAGE;
    } else
      file = argv[i];
  }
  if (!file) {
    fprintf(stderr,
            "usage: ductile submit JOB.json | DECK.inp | MESH.msh --job JOB.json [--wait]\n");
    return DC_EXIT_USAGE;
  }
  if (ends_with(file, ".msh") && !job_path) {
    fprintf(stderr, "ductile submit: a Gmsh mesh needs --job JOB.json (materials, steps, loads)\n");
    return DC_EXIT_USAGE;
  }
  if (ends_with(file, ".inp") && job_path) {
    fprintf(stderr, "ductile submit: an Abaqus deck is a whole job; --job is not used with it\n");
    return DC_EXIT_USAGE;
  }
  if (job_path) {
    /* FILE is the mesh: an existing mesh id, a .msh, a mesh object or a job with a mesh. */
    if (dc_valid_id(file, 'm'))
      snprintf(mesh_id, sizeof mesh_id, "%s", file);
    else if ((rc = dc_upload_mesh(s, file, NULL, mesh_id, sizeof mesh_id, NULL)) != 0)
      goto cleanup;
    if ((rc = job_with_mesh(job_path, mesh_id, &body, &len)) != 0) goto cleanup;
  } else {
    if ((rc = dc_read_file(file, &body, &len)) != 0) goto cleanup;
    if (ends_with(file, ".inp")) {
      ctype = "application/x-abaqus-inp";
      what = "submit (Abaqus deck)";
    }
  }
  rc = dc_api(s, "POST", "/v1/jobs", ctype, body, len, what, &job);
  if (rc) goto cleanup; /* dc_api printed the daemon's error (file, line and reason for decks) */
  if (!wait) {
    if (s->json)
      dc_print_json(job);
    else
      printf("%s\n", dc_jstr(job, "id", ""));
    goto cleanup;
  }
  if (!s->json && !s->quiet) fprintf(stderr, "submitted %s\n", dc_jstr(job, "id", ""));
  rc = dc_watch_job(s, dc_jstr(job, "id", ""), &final);
  if (final) {
    if (s->json)
      dc_print_json(final);
    else
      printf("%s %s\n", dc_jstr(final, "id", ""), dc_jstr(final, "state", "?"));
  }
cleanup:
  free(body);
  json_decref(job);
  json_decref(final);
  return rc;
}

static void print_job_line(const json_t *j) {
  const json_t *p = json_object_get(j, "progress");
  const char *t = dc_jstr(j, "title", "");
  printf("%-18s  %-9s  %5.1f%%  %-24.24s  %s\n", dc_jstr(j, "id", "?"), dc_jstr(j, "state", "?"),
         dc_jnum(p, "percent", 0), dc_jstr(j, "created_at", ""), t);
}

static void print_job(const json_t *j) {
  const json_t *p = json_object_get(j, "progress"), *t = json_object_get(j, "timings");
  const json_t *e = json_object_get(j, "error");
  printf("id        %s\nstate     %s%s\ntitle     %s\n", dc_jstr(j, "id", "?"),
         dc_jstr(j, "state", "?"),
         json_is_true(json_object_get(j, "cancel_requested")) ? " (cancel requested)" : "",
         dc_jstr(j, "title", ""));
  printf("progress  %.1f%%  step %.0f/%.0f  increment %.0f  Newton iteration %.0f  residual %.3e  "
         "(%.0f increments completed)\n",
         dc_jnum(p, "percent", 0), dc_jnum(p, "step", 0), dc_jnum(p, "n_steps", 0),
         dc_jnum(p, "increment", 0), dc_jnum(p, "newton_iteration", 0), dc_jnum(p, "residual", 0),
         dc_jnum(p, "increments_completed", 0));
  printf("created   %s\nstarted   %s\nfinished  %s\nbackend   %s\n", dc_jstr(j, "created_at", "-"),
         dc_jstr(j, "started_at", "-"), dc_jstr(j, "finished_at", "-"), dc_jstr(j, "backend", "-"));
  if (dc_jnum(t, "run_seconds", -1) >= 0)
    printf("run time  %.3f s\n", dc_jnum(t, "run_seconds", 0));
  if (dc_jnum(t, "total", -1) >= 0) /* the solver's phases, once the job has ended */
    printf("phases    setup %.3f  assembly %.3f  stress %.3f  linear solver %.3f (preconditioner "
           "setup %.3f)  loads %.3f  output %.3f s\n",
           dc_jnum(t, "setup", 0), dc_jnum(t, "assembly", 0), dc_jnum(t, "stress_update", 0),
           dc_jnum(t, "linear_solver", 0), dc_jnum(t, "preconditioner_setup", 0),
           dc_jnum(t, "loads", 0), dc_jnum(t, "output", 0));
  if (json_is_object(e))
    printf("error     %s: %s\n", dc_jstr(e, "code", "?"), dc_jstr(e, "message", ""));
}

int dc_cmd_status(const dc_settings *s, int argc, char **argv) {
  const char *id = NULL, *state = NULL;
  char path[512];
  int i, rc, limit = 50;
  size_t k;
  json_t *doc = NULL, *v;
  for (i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--state") == 0 && i + 1 < argc)
      state = argv[++i];
    else if (strcmp(argv[i], "--limit") == 0 && i + 1 < argc)
      limit = atoi(argv[++i]);
    else if (argv[i][0] == '-' || id) {
      fprintf(stderr, "ductile status: unexpected argument '%s'\n", argv[i]);
      return DC_EXIT_USAGE;
    } else
      id = argv[i];
  }
  if (id) {
    if (!dc_valid_id(id, 'j')) {
      fprintf(stderr, "ductile status: '%s' is not a job id (j- and 16 hex digits)\n", id);
      return DC_EXIT_NOTFOUND;
    }
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    rc = dc_api(s, "GET", path, NULL, NULL, 0, "job status", &doc);
    if (rc == 0) {
      if (s->json)
        dc_print_json(doc);
      else
        print_job(doc);
    }
    goto cleanup;
  }
  snprintf(path, sizeof path, "/v1/jobs?limit=%d%s%.200s", limit > 0 ? limit : 50,
           state ? "&state=" : "", state ? state : "");
  rc = dc_api(s, "GET", path, NULL, NULL, 0, "job list", &doc);
  if (rc) goto cleanup;
  if (s->json) {
    dc_print_json(doc);
    goto cleanup;
  }
  printf("%-18s  %-9s  %6s  %-24s  %s\n", "ID", "STATE", "DONE", "CREATED", "TITLE");
  json_array_foreach(json_object_get(doc, "items"), k, v) print_job_line(v);
cleanup:
  json_decref(doc);
  return rc;
}

static int job_action(const dc_settings *s, int argc, char **argv, const char *cmd) {
  char path[256];
  int rc, wait = 0, i;
  const char *id = NULL;
  json_t *doc = NULL, *final = NULL;
  for (i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--wait") == 0 && cmd[0] == 'c')
      wait = 1;
    else if (argv[i][0] == '-' || id) {
      fprintf(stderr, "ductile %s: unexpected argument '%s'\n", cmd, argv[i]);
      return DC_EXIT_USAGE;
    } else
      id = argv[i];
  }
  if (!id) {
    fprintf(stderr, "usage: ductile %s JOB_ID%s\n", cmd, cmd[0] == 'c' ? " [--wait]" : "");
    return DC_EXIT_USAGE;
  }
  if (!dc_valid_id(id, 'j')) {
    fprintf(stderr, "ductile %s: '%s' is not a job id (j- and 16 hex digits)\n", cmd, id);
    return DC_EXIT_NOTFOUND;
  }
  if (cmd[0] == 'c') {
    snprintf(path, sizeof path, "/v1/jobs/%s/cancel", id);
    rc = dc_api(s, "POST", path, NULL, NULL, 0, "cancel", &doc);
  } else {
    snprintf(path, sizeof path, "/v1/jobs/%s", id);
    rc = dc_api(s, "DELETE", path, NULL, NULL, 0, "delete", &doc);
  }
  if (rc) goto cleanup;
  if (wait) {
    if (!s->json && !s->quiet)
      fprintf(stderr, "cancel requested for %s; waiting for it to stop\n", id);
    rc = dc_watch_job(s, id, &final);
    if (final && dc_jstr(final, "state", NULL) &&
        strcmp(dc_jstr(final, "state", ""), "cancelled") == 0)
      rc = DC_EXIT_OK;
    if (s->json && final)
      dc_print_json(final);
    else if (final)
      printf("%s %s\n", id, dc_jstr(final, "state", "?"));
  } else if (s->json) {
    if (doc)
      dc_print_json(doc);
    else
      printf("{\"id\": \"%s\", \"deleted\": true}\n", id);
  } else if (cmd[0] == 'c') {
    printf("%s %s%s\n", id, dc_jstr(doc, "state", "?"),
           json_is_true(json_object_get(doc, "cancel_requested")) ? " (cancel requested)" : "");
  } else {
    printf("%s deleted\n", id);
  }
cleanup:
  json_decref(doc);
  json_decref(final);
  return rc;
}

int dc_cmd_cancel(const dc_settings *s, int argc, char **argv) {
  return job_action(s, argc, argv, "cancel");
}
int dc_cmd_delete(const dc_settings *s, int argc, char **argv) {
  return job_action(s, argc, argv, "delete");
}

int dc_cmd_health(const dc_settings *s, int argc, char **argv) {
  json_t *doc = NULL;
  int rc;
  if (argc > 0) {
    fprintf(stderr, "usage: ductile health\n");
    return DC_EXIT_USAGE;
  }
  rc = dc_api(s, "GET", "/v1/health", NULL, NULL, 0, "health", &doc);
  if (rc == 0) {
    if (s->json)
      dc_print_json(doc);
    else
      printf("%s  %s  version %s  backend %s  queue %.0f\n", s->url, dc_jstr(doc, "status", "?"),
             dc_jstr(doc, "version", "?"), dc_jstr(doc, "backend_selected", "-"),
             dc_jnum(doc, "queue_depth", 0));
  }
  json_decref(doc);
  return rc;
}
