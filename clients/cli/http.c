/* HTTP through libcurl: plain requests into a buffer, streams into a callback, and the
 * mapping of the daemon's error envelope {"error": {code, message, details}} to exit codes. */
#include "client.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct buf {
  char *p;
  size_t n, cap;
} buf;

static size_t buf_write(char *data, size_t size, size_t nmemb, void *user) {
  buf *b = user;
  size_t n = size * nmemb;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 4096;
    char *p;
    while (cap < b->n + n + 1) cap *= 2;
    p = realloc(b->p, cap);
    if (!p) return 0;
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, data, n);
  b->n += n;
  b->p[b->n] = '\0';
  return n;
}

void dc_resp_free(dc_resp *r) {
  free(r->body);
  memset(r, 0, sizeof *r);
}

int dc_http_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1; }
void dc_http_cleanup(void) { curl_global_cleanup(); }

static void connect_error(const dc_settings *s, CURLcode cc, const char *errbuf) {
  fprintf(stderr, "ductile: cannot reach the server at %s (url from %s): %s\n", s->url, s->url_from,
          errbuf[0] ? errbuf : curl_easy_strerror(cc));
  if (cc == CURLE_COULDNT_CONNECT)
    fprintf(stderr,
            "ductile: is ductiled running? Start it with `ductiled`, or set --url / DUCTILE_URL\n");
}

/* A handle with URL, method, auth header and body set; *hdrs must be freed by the caller. */
static CURL *make_handle(const dc_settings *s, const char *method, const char *path,
                         const char *ctype, const char *body, size_t body_len,
                         const char *const *extra, struct curl_slist **hdrs, char *errbuf) {
  char url[2048], line[700];
  CURL *h = curl_easy_init();
  if (!h) return NULL;
  snprintf(url, sizeof url, "%s%s", s->url, path);
  curl_easy_setopt(h, CURLOPT_URL, url);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "ductile-cli/" DC_VERSION);
  if (s->token[0]) {
    snprintf(line, sizeof line, "Authorization: Bearer %s", s->token);
    *hdrs = curl_slist_append(*hdrs, line);
  }
  if (ctype) {
    snprintf(line, sizeof line, "Content-Type: %s", ctype);
    *hdrs = curl_slist_append(*hdrs, line);
  }
  *hdrs = curl_slist_append(*hdrs, "Expect:");
  for (; extra && *extra; extra++) *hdrs = curl_slist_append(*hdrs, *extra);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, *hdrs);
  if (strcmp(method, "GET") != 0) curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
  if (body || strcmp(method, "POST") == 0) {
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body ? body : "");
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? body_len : 0));
  }
  return h;
}

int dc_request(const dc_settings *s, const char *method, const char *path, const char *ctype,
               const char *body, size_t body_len, dc_resp *out) {
  int rc = DC_EXIT_OK;
  char errbuf[CURL_ERROR_SIZE] = "";
  struct curl_slist *hdrs = NULL;
  const char *ct = NULL;
  buf b = {0};
  CURL *h = make_handle(s, method, path, ctype, body, body_len, NULL, &hdrs, errbuf);
  CURLcode cc;
  memset(out, 0, sizeof *out);
  if (!h) {
    fprintf(stderr, "ductile: cannot initialise libcurl\n");
    rc = DC_EXIT_LOCAL;
    goto cleanup;
  }
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, buf_write);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
  if (s->timeout > 0) curl_easy_setopt(h, CURLOPT_TIMEOUT, s->timeout);
  cc = curl_easy_perform(h);
  if (cc != CURLE_OK) {
    connect_error(s, cc, errbuf);
    rc = DC_EXIT_CONNECT;
    goto cleanup;
  }
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &out->status);
  if (curl_easy_getinfo(h, CURLINFO_CONTENT_TYPE, &ct) == CURLE_OK && ct)
    snprintf(out->ctype, sizeof out->ctype, "%s", ct);
  out->body = b.p ? b.p : calloc(1, 1);
  out->len = b.n;
  b.p = NULL;
cleanup:
  free(b.p);
  curl_slist_free_all(hdrs);
  if (h) curl_easy_cleanup(h);
  return rc;
}

int dc_report_http_error(const dc_settings *s, const dc_resp *r, const char *what) {
  json_error_t jerr;
  json_t *doc = r->body ? json_loadb(r->body, r->len, 0, &jerr) : NULL;
  json_t *err = doc ? json_object_get(doc, "error") : NULL;
  const char *code = dc_jstr(err, "code", "http_error");
  const char *msg = dc_jstr(err, "message", NULL);
  int rc;
  if (r->status == 401)
    rc = DC_EXIT_AUTH;
  else if (r->status == 404)
    rc = DC_EXIT_NOTFOUND;
  else if (r->status >= 400 && r->status < 500)
    rc = DC_EXIT_REJECTED;
  else
    rc = DC_EXIT_SERVER;
  if (msg)
    fprintf(stderr, "ductile: %s: %s (HTTP %ld %s)\n", what, msg, r->status, code);
  else
    fprintf(stderr, "ductile: %s: the server answered HTTP %ld%s%.200s\n", what, r->status,
            r->len ? ": " : "", r->len ? r->body : "");
  if (r->status == 401) {
    if (s->token[0])
      fprintf(stderr, "ductile: the token (from %s) was refused: check --token / DUCTILE_TOKEN\n",
              s->token_from);
    else
      fprintf(stderr,
              "ductile: no token: pass --token, set DUCTILE_TOKEN, or run on the daemon's machine "
              "(its admin.token is found there)\n");
  }
  if (s->json) {
    json_t *o = json_pack("{s:{s:s,s:s,s:I}}", "error", "code", code, "message", msg ? msg : "",
                          "status", (json_int_t)r->status);
    dc_print_json(o);
    json_decref(o);
  }
  json_decref(doc);
  return rc;
}

int dc_api(const dc_settings *s, const char *method, const char *path, const char *ctype,
           const char *body, size_t body_len, const char *what, json_t **out) {
  dc_resp r;
  json_error_t jerr;
  int rc = dc_request(s, method, path, ctype, body, body_len, &r);
  if (out) *out = NULL;
  if (rc != DC_EXIT_OK) goto cleanup;
  if (r.status < 200 || r.status > 299) {
    rc = dc_report_http_error(s, &r, what);
    goto cleanup;
  }
  if (out && r.len > 0) {
    *out = json_loadb(r.body, r.len, 0, &jerr);
    if (!*out) {
      fprintf(stderr, "ductile: %s: the server's answer is not JSON: %s\n", what, jerr.text);
      rc = DC_EXIT_SERVER;
    }
  }
cleanup:
  dc_resp_free(&r);
  return rc;
}

typedef struct stream_ctx {
  dc_chunk_fn cb;
  void *user;
  CURL *h;
  buf err;     /* the body of a non-2xx answer */
  int checked; /* status looked at */
  int ok;
  int stopped;
} stream_ctx;

static size_t stream_write(char *data, size_t size, size_t nmemb, void *user) {
  stream_ctx *c = user;
  size_t n = size * nmemb;
  if (!c->checked) {
    long st = 0;
    curl_easy_getinfo(c->h, CURLINFO_RESPONSE_CODE, &st);
    c->ok = st >= 200 && st <= 299;
    c->checked = 1;
  }
  if (!c->ok) return buf_write(data, size, nmemb, &c->err);
  if (c->cb(data, n, c->user) != 0) {
    c->stopped = 1;
    return 0;
  }
  return n;
}

int dc_stream(const dc_settings *s, const char *path, const char *const *headers, dc_chunk_fn cb,
              void *user, long *status, dc_resp *err_body) {
  int rc = DC_EXIT_OK;
  char errbuf[CURL_ERROR_SIZE] = "";
  struct curl_slist *hdrs = NULL;
  stream_ctx c;
  CURLcode cc;
  CURL *h = make_handle(s, "GET", path, NULL, NULL, 0, headers, &hdrs, errbuf);
  memset(&c, 0, sizeof c);
  memset(err_body, 0, sizeof *err_body);
  *status = 0;
  if (!h) {
    rc = DC_EXIT_LOCAL;
    goto cleanup;
  }
  c.cb = cb;
  c.user = user;
  c.h = h;
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, stream_write);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &c);
  /* No overall timeout; a stream silent for 60 s (keep-alives come every 15 s) is dead. */
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
  cc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
  if (c.stopped) goto cleanup;
  if (cc != CURLE_OK && *status == 0) {
    connect_error(s, cc, errbuf);
    rc = DC_EXIT_CONNECT;
    goto cleanup;
  }
  if (*status < 200 || *status > 299) {
    err_body->status = *status;
    err_body->body = c.err.p ? c.err.p : calloc(1, 1);
    err_body->len = c.err.n;
    c.err.p = NULL;
  }
cleanup:
  free(c.err.p);
  curl_slist_free_all(hdrs);
  if (h) curl_easy_cleanup(h);
  return rc;
}
