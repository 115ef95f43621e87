/* meshes: list, show ID, upload FILE [--name NAME], delete ID; and the mesh upload of submit. */
#include "client.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_msh(const char *path) {
  size_t n = strlen(path);
  return n > 4 && strcmp(path + n - 4, ".msh") == 0;
}

int dc_upload_mesh(const dc_settings *s, const char *path, const char *name, char *id, size_t cap,
                   json_t **out) {
  int rc;
  char *data = NULL, *esc = NULL, *body = NULL, q[512];
  size_t len = 0;
  const char *ctype = "application/json";
  json_t *doc = NULL, *mesh = NULL;
  json_error_t jerr;
  rc = dc_read_file(path, &data, &len);
  if (rc) goto cleanup;
  if (is_msh(path)) {
    ctype = "application/x-gmsh-msh";
    body = data;
  } else {
    doc = json_loadb(data, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
      fprintf(stderr, "ductile: %s:%d:%d: not valid JSON: %s\n", path, jerr.line, jerr.column,
              jerr.text);
      rc = DC_EXIT_LOCAL;
      goto cleanup;
    }
    mesh = json_object_get(doc, "mesh"); /* a whole job: take its mesh */
    body = json_dumps(mesh ? mesh : doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
    len = body ? strlen(body) : 0;
  }
  if (!name) name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  esc = curl_easy_escape(NULL, name, 0);
  snprintf(q, sizeof q, "/v1/meshes?name=%.120s", esc ? esc : "mesh");
  json_decref(doc);
  doc = NULL;
  rc = dc_api(s, "POST", q, ctype, body, len,
              ctype[12] == 'x' ? "mesh upload (Gmsh .msh)" : "mesh upload", &doc);
  if (rc) goto cleanup; /* dc_api printed the daemon's error (file, line and reason for .msh) */
  snprintf(id, cap, "%s", dc_jstr(doc, "id", ""));
  if (!s->quiet && !s->json && !out) fprintf(stderr, "uploaded mesh %s as %s\n", path, id);
  if (out) {
    *out = doc;
    doc = NULL;
  }
cleanup:
  if (body != data) free(body);
  free(data);
  curl_free(esc);
  json_decref(doc);
  return rc;
}

static int meshes_upload(const dc_settings *s, int argc, char **argv) {
  const char *file = NULL, *name = NULL;
  char id[64];
  json_t *doc = NULL;
  int i, rc;
  for (i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--name") == 0 && i + 1 < argc)
      name = argv[++i];
    else if (argv[i][0] == '-' || file) {
      fprintf(stderr, "ductile meshes upload: unexpected argument '%s'\n", argv[i]);
      return DC_EXIT_USAGE;
    } else
      file = argv[i];
  }
  if (!file) {
    fprintf(stderr, "usage: ductile meshes upload MESH.json|JOB.json|MESH.msh [--name NAME]\n");
    return DC_EXIT_USAGE;
  }
  rc = dc_upload_mesh(s, file, name, id, sizeof id, &doc);
  if (rc == 0 && s->json)
    dc_print_json(doc);
  else if (rc == 0)
    printf("%s\n", id);
  json_decref(doc);
  return rc;
}

static void print_mesh(const json_t *m) {
  printf("%-18s  %3.0fD  %8.0f nodes  %8.0f elements  %10.0f bytes  %-24.24s  %s\n",
         dc_jstr(m, "id", "?"), dc_jnum(m, "dim", 0), dc_jnum(m, "n_nodes", 0),
         dc_jnum(m, "n_elements", 0), dc_jnum(m, "bytes", 0), dc_jstr(m, "created_at", ""),
         dc_jstr(m, "name", ""));
}

int dc_cmd_meshes(const dc_settings *s, int argc, char **argv) {
  const char *sub = argc > 0 ? argv[0] : "list";
  char path[256];
  json_t *doc = NULL, *v;
  size_t k;
  int rc;
  if (strcmp(sub, "upload") == 0) return meshes_upload(s, argc - 1, argv + 1);
  if (strcmp(sub, "list") == 0 && argc <= 1) {
    rc = dc_api(s, "GET", "/v1/meshes?limit=1000", NULL, NULL, 0, "mesh list", &doc);
    if (rc == 0 && s->json)
      dc_print_json(doc);
    else if (rc == 0)
      json_array_foreach(json_object_get(doc, "items"), k, v) print_mesh(v);
    goto cleanup;
  }
  if ((strcmp(sub, "show") == 0 || strcmp(sub, "delete") == 0) && argc == 2) {
    if (!dc_valid_id(argv[1], 'm')) {
      fprintf(stderr, "ductile meshes %s: '%s' is not a mesh id (m- and 16 hex digits)\n", sub,
              argv[1]);
      return DC_EXIT_NOTFOUND;
    }
    snprintf(path, sizeof path, "/v1/meshes/%s", argv[1]);
    rc = dc_api(s, sub[0] == 's' ? "GET" : "DELETE", path, NULL, NULL, 0,
                sub[0] == 's' ? "mesh" : "mesh delete", &doc);
    if (rc == 0 && sub[0] == 'd') {
      if (s->json)
        printf("{\"id\": \"%s\", \"deleted\": true}\n", argv[1]);
      else
        printf("%s deleted\n", argv[1]);
    } else if (rc == 0) {
      if (s->json)
        dc_print_json(doc);
      else
        print_mesh(doc);
    }
    goto cleanup;
  }
  fprintf(stderr,
          "usage: ductile meshes [list] | show ID | upload FILE [--name NAME] | delete ID\n");
  return DC_EXIT_USAGE;
cleanup:
  json_decref(doc);
  return rc;
}
