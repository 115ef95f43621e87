/* ductile: command-line client of ductiled. Global options may come before or after the
 * command; see usage() and docs/clients.md. */
#include "client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *fp) {
  fprintf(fp, "usage: ductile [options] COMMAND [args]\n"
              "\n"
              "commands:\n"
              "  submit JOB.json [--wait]             submit a job (prints its id)\n"
              "  submit DECK.inp [--wait]             submit an Abaqus/CalculiX deck\n"
              "  submit MESH.msh|MESH.json|m-ID --job JOB.json [--wait]\n"
              "                                       upload a mesh, then the job on it\n"
              "  status [ID] [--state S] [--limit N]  one job, or the job list\n"
              "  watch ID                             live progress until the job ends\n"
              "  results ID [--json|--csv|--vtu DIR [--increment N]|--fields N] [-o FILE]\n"
              "  cancel ID [--wait]                   cancel a queued or running job\n"
              "  delete ID                            remove a finished job and its files\n"
              "  meshes [list|show ID|upload FILE [--name N]|delete ID]\n"
              "  health                               the daemon's status\n"
              "\n"
              "options:\n"
              "  --url URL          server (DUCTILE_URL; default http://127.0.0.1:8080)\n"
              "  --token TOKEN      bearer token (DUCTILE_TOKEN)\n"
              "  --token-file FILE  read the token from FILE (DUCTILE_TOKEN_FILE)\n"
              "  --config FILE      client config (DUCTILE_CONFIG; ~/.config/ductile/client.conf)\n"
              "  --json             JSON on stdout (watch: one event per line)\n"
              "  --quiet            no progress output\n"
              "  --timeout SECONDS  per request (default 60; streams are not limited)\n"
              "\n"
              "Without a token, a daemon on this machine is found through its admin.token.\n"
              "exit codes: 0 ok, 1 job failed/cancelled, 2 usage, 3 server unreachable,\n"
              "            4 token refused, 5 not found, 6 request refused, 7 server error,\n"
              "            8 local file error\n");
}

typedef int (*cmd_fn)(const dc_settings *, int, char **);
static const struct {
  const char *name;
  cmd_fn fn;
} commands[] = {
    {"submit", dc_cmd_submit},   {"status", dc_cmd_status}, {"watch", dc_cmd_watch},
    {"results", dc_cmd_results}, {"cancel", dc_cmd_cancel}, {"delete", dc_cmd_delete},
    {"meshes", dc_cmd_meshes},   {"health", dc_cmd_health},
};

int main(int argc, char **argv) {
  const char *url = NULL, *token = NULL, *token_file = NULL, *config = NULL;
  char **rest = calloc((size_t)argc + 1, sizeof *rest);
  dc_settings s;
  cmd_fn fn = NULL;
  int i, n = 0, rc = DC_EXIT_USAGE;
  size_t c;
  memset(&s, 0, sizeof s);
  s.timeout = 60;
  if (!rest) return DC_EXIT_LOCAL;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has = i + 1 < argc;
    if (strcmp(a, "--url") == 0 && has)
      url = argv[++i];
    else if (strcmp(a, "--token") == 0 && has)
      token = argv[++i];
    else if (strcmp(a, "--token-file") == 0 && has)
      token_file = argv[++i];
    else if (strcmp(a, "--config") == 0 && has)
      config = argv[++i];
    else if (strcmp(a, "--timeout") == 0 && has)
      s.timeout = atol(argv[++i]);
    else if (strcmp(a, "--json") == 0)
      s.json = 1;
    else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0)
      s.quiet = 1;
    else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      rc = DC_EXIT_OK;
      goto cleanup;
    } else if (strcmp(a, "--version") == 0) {
      printf("ductile %s\n", DC_VERSION);
      rc = DC_EXIT_OK;
      goto cleanup;
    } else
      rest[n++] = argv[i];
  }
  if (n == 0) {
    usage(stderr);
    goto cleanup;
  }
  for (c = 0; c < sizeof commands / sizeof commands[0]; c++)
    if (strcmp(rest[0], commands[c].name) == 0) fn = commands[c].fn;
  if (!fn) {
    fprintf(stderr, "ductile: unknown command '%s' (ductile --help lists them)\n", rest[0]);
    goto cleanup;
  }
  rc = dc_settings_resolve(&s, url, token, token_file, config);
  if (rc) goto cleanup;
  if (dc_http_init() != 0) {
    fprintf(stderr, "ductile: cannot initialise libcurl\n");
    rc = DC_EXIT_LOCAL;
    goto cleanup;
  }
  rc = fn(&s, n - 1, rest + 1);
  dc_http_cleanup();
cleanup:
  free(rest);
  return rc;
}
