/* ductile: the command-line client of ductiled (libcurl + Jansson).
 *
 * Every command returns one of the exit codes below, so scripts can tell "the server is down"
 * from "the token is wrong" from "the job failed". Messages go to stderr as
 * "ductile: <what>: <why>"; with --json, stdout carries only JSON documents. */
#ifndef DT_CLIENT_H
#define DT_CLIENT_H

#include <jansson.h>
#include <stddef.h>

/* Exit codes (docs/clients.md). */
enum {
  DC_EXIT_OK = 0,
  DC_EXIT_JOB = 1,     /* the job ended failed or cancelled (submit --wait, watch, status --wait) */
  DC_EXIT_USAGE = 2,   /* bad command line or config file */
  DC_EXIT_CONNECT = 3, /* the server cannot be reached (down, refused, timeout, DNS) */
  DC_EXIT_AUTH = 4,    /* 401: no token, or a wrong or revoked one */
  DC_EXIT_NOTFOUND = 5, /* 404: unknown job, mesh or increment */
  DC_EXIT_REJECTED = 6, /* 400, 405, 409, 413, 415, 422, 429: the request was refused */
  DC_EXIT_SERVER = 7,   /* 5xx, or an answer the client does not understand */
  DC_EXIT_LOCAL = 8     /* a local file cannot be read or written */
};

/* Where the settings came from, for messages ("token from DUCTILE_TOKEN"). */
typedef struct dc_settings {
  char url[1024]; /* base URL without a trailing slash, e.g. http://127.0.0.1:8080 */
  char token[512];
  char url_from[256];
  char token_from[1280];
  long timeout; /* seconds for ordinary requests (0: none) */
  int json;     /* --json: machine output on stdout */
  int quiet;    /* --quiet: no progress output */
} dc_settings;

/* config.c: flags > environment > config file > defaults; the token last falls back to the
 * admin.token a daemon on this machine wrote (loopback URLs only). flag_* may be NULL. */
int dc_settings_resolve(dc_settings *s, const char *flag_url, const char *flag_token,
                        const char *flag_token_file, const char *flag_config);

/* http.c */
typedef struct dc_resp {
  long status; /* HTTP status; 0 if no answer */
  char *body;  /* NUL-terminated; owned (free()) */
  size_t len;
  char ctype[128];
} dc_resp;

void dc_resp_free(dc_resp *r);
int dc_http_init(void);
void dc_http_cleanup(void);
/* One request. body may be NULL. Returns DC_EXIT_OK when an HTTP answer (any status) came,
 * DC_EXIT_CONNECT with a message printed otherwise. */
int dc_request(const dc_settings *s, const char *method, const char *path, const char *ctype,
               const char *body, size_t body_len, dc_resp *out);
/* A JSON API call: any 2xx with a JSON body gives *out (may be NULL for 202/204 without body);
 * other statuses print the server's error message (with what) and map to an exit code. */
int dc_api(const dc_settings *s, const char *method, const char *path, const char *ctype,
           const char *body, size_t body_len, const char *what, json_t **out);
/* Map an HTTP status to an exit code and print the error envelope's message. */
int dc_report_http_error(const dc_settings *s, const dc_resp *r, const char *what);
/* Stream a GET: each chunk goes to cb (return nonzero to stop). Returns like dc_request;
 * *status receives the HTTP status. headers: NULL-terminated list of extra header lines. */
typedef int (*dc_chunk_fn)(const char *data, size_t len, void *user);
int dc_stream(const dc_settings *s, const char *path, const char *const *headers, dc_chunk_fn cb,
              void *user, long *status, dc_resp *err_body);

/* util */
int dc_read_file(const char *path, char **out, size_t *len);
int dc_write_file(const char *path, const char *data, size_t len);
void dc_print_json(const json_t *j);
const char *dc_jstr(const json_t *obj, const char *key, const char *dflt);
double dc_jnum(const json_t *obj, const char *key, double dflt);
int dc_valid_id(const char *id, char prefix);
int dc_job_exit(const char *state);

/* commands: argc/argv are the arguments after the command name. */
int dc_cmd_submit(const dc_settings *s, int argc, char **argv);
int dc_cmd_status(const dc_settings *s, int argc, char **argv);
int dc_cmd_cancel(const dc_settings *s, int argc, char **argv);
int dc_cmd_delete(const dc_settings *s, int argc, char **argv);
int dc_cmd_watch(const dc_settings *s, int argc, char **argv);
int dc_cmd_results(const dc_settings *s, int argc, char **argv);
int dc_cmd_meshes(const dc_settings *s, int argc, char **argv);
int dc_cmd_health(const dc_settings *s, int argc, char **argv);
/* Upload a mesh file: .msh (application/x-gmsh-msh), a mesh object or a whole job (its
 * "mesh"). name NULL: the file name. id gets the new id; *out (may be NULL) the Mesh document. */
int dc_upload_mesh(const dc_settings *s, const char *path, const char *name, char *id, size_t cap,
                   json_t **out);
/* Follow a job to its end (SSE, reconnecting; progress bar on a terminal). Returns the exit
 * code for its final state; *final (may be NULL) gets the final job document. */
int dc_watch_job(const dc_settings *s, const char *job_id, json_t **final);

#endif
