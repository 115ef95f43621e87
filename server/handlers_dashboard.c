/* The web dashboard (clients/dashboard, built by `cmake --build build --target dashboard`),
 * served at / without a token: the page asks for the token and sends it as a Bearer header on
 * its /v1 calls. Static files only, from one directory chosen at start-up:
 *   DUCTILE_DASHBOARD_DIR, else the config key dashboard_dir, else the first of
 *   <prefix>/share/ductile/dashboard and <build>/clients/dashboard/dist that holds index.html.
 * Routes: / (index.html), /{file} (top-level files), /assets/{file} (Vite's hashed assets).
 *
 * Path handling is strict: a name is one segment of [A-Za-z0-9._~-] not starting with '.'
 * (libmicrohttpd has already decoded %xx, so "%2e%2e" arrives as ".." and "%2f" as "/",
 * which the router's one-segment patterns never match); the file's realpath must lie inside
 * the directory's realpath (a symlink out of it is 404); only regular files are served.
 * Caching: ETag (size + mtime) and Last-Modified, If-None-Match / If-Modified-Since -> 304;
 * index.html and other top-level files "no-cache" (revalidate), assets (content-hashed
 * names) a year, immutable. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "handlers.h"
#include "log.h"

#ifndef DUCTILE_INSTALL_PREFIX
#define DUCTILE_INSTALL_PREFIX "/usr/local"
#endif
#ifndef DUCTILE_BUILD_DASHBOARD_DIR
#define DUCTILE_BUILD_DASHBOARD_DIR ""
#endif

static int has_index(const char *dir) {
  char p[PATH_MAX + 16];
  struct stat sb;
  snprintf(p, sizeof p, "%s/index.html", dir);
  return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static dt_status resolve_dir(const char *dir, char *out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char tmp[PATH_MAX];
  struct stat sb;
  errno = 0;
  DT_CHECK(dir[0] && realpath(dir, tmp) && stat(tmp, &sb) == 0 && S_ISDIR(sb.st_mode), ctx,
           DT_ERR_IO, "\"%s\" is not a directory (%s)", dir, strerror(errno ? errno : ENOTDIR));
  snprintf(out, PATH_MAX, "%s", tmp);
cleanup:
  return rc;
}

/* The first of the built-in places that holds a dashboard (index.html) into srv. */
static void find_installed(dt_server *srv) {
  static const char *const candidates[] = {DUCTILE_INSTALL_PREFIX "/share/ductile/dashboard",
                                           DUCTILE_BUILD_DASHBOARD_DIR};
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0] && !srv->dashboard_dir[0]; i++)
    if (resolve_dir(candidates[i], srv->dashboard_dir, NULL) != DT_OK ||
        !has_index(srv->dashboard_dir))
      srv->dashboard_dir[0] = '\0';
}

void dt_dashboard_init(dt_server *srv) {
  const char *env = getenv("DUCTILE_DASHBOARD_DIR"), *dir = NULL, *origin = NULL;
  dt_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  srv->dashboard_dir[0] = '\0';
  if (env && env[0])
    dir = env, origin = "DUCTILE_DASHBOARD_DIR";
  else if (srv->cfg.dashboard_dir[0])
    dir = srv->cfg.dashboard_dir, origin = "dashboard_dir";
  if (dir && resolve_dir(dir, srv->dashboard_dir, &ctx) != DT_OK) {
    dt_log_warn("dashboard: %s = %s: the dashboard is not served at /", origin, ctx.msg);
    srv->dashboard_dir[0] = '\0';
    return;
  }
  if (dir && !has_index(srv->dashboard_dir))
    dt_log_warn(
        "dashboard: %s has no index.html (build it: cmake --build build --target dashboard)",
        srv->dashboard_dir);
  if (!dir) find_installed(srv);
  if (!srv->dashboard_dir[0]) {
    dt_log_info(
        "dashboard: not installed (looked in %s/share/ductile/dashboard%s%s; set dashboard_dir or "
        "DUCTILE_DASHBOARD_DIR, or build it: cmake --build build --target dashboard)",
        DUCTILE_INSTALL_PREFIX, DUCTILE_BUILD_DASHBOARD_DIR[0] ? " and " : "",
        DUCTILE_BUILD_DASHBOARD_DIR);
    return;
  }
  {
    const char *kv[] = {"dir", srv->dashboard_dir, NULL};
    dt_log(DT_LOG_INFO, NULL, kv, "dashboard: serving %s at /", srv->dashboard_dir);
  }
}

static const char *content_type(const char *name) {
  static const struct {
    const char *ext, *type;
  } types[] = {{".html", "text/html; charset=utf-8"},
               {".js", "text/javascript; charset=utf-8"},
               {".mjs", "text/javascript; charset=utf-8"},
               {".css", "text/css; charset=utf-8"},
               {".svg", "image/svg+xml"},
               {".png", "image/png"},
               {".json", "application/json"},
               {".wasm", "application/wasm"},
               {".ico", "image/x-icon"},
               {".map", "application/json"},
               {".txt", "text/plain; charset=utf-8"},
               {".webmanifest", "application/manifest+json"},
               {".woff2", "font/woff2"},
               {".jpg", "image/jpeg"}};
  const char *dot = strrchr(name, '.');
  if (dot)
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
      if (!strcmp(dot, types[i].ext)) return types[i].type;
  return "application/octet-stream";
}

/* One path segment: [A-Za-z0-9._~-], not starting with '.', at most 95 characters. */
static int name_ok(const char *s) {
  size_t n = strlen(s);
  if (n == 0 || n > 95 || s[0] == '.') return 0;
  for (const char *p = s; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
          *p == '.' || *p == '_' || *p == '-' || *p == '~'))
      return 0;
  return 1;
}

static void not_found(dt_req *r) {
  dt_reply_error(r, 404, "not_found", NULL, "no such resource: %.200s", r->url);
}

static void not_installed(dt_req *r) {
  static const char page[] =
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ductile: dashboard "
      "not "
      "installed</title></head>\n<body style=\"font-family: sans-serif; max-width: 44em; margin: "
      "3em auto\">\n"
      "<h1>The ductile dashboard is not installed</h1>\n"
      "<p>ductiled serves the web dashboard at <code>/</code> from the directory in "
      "<code>DUCTILE_DASHBOARD_DIR</code> or the config key <code>dashboard_dir</code>, else from "
      "<code>&lt;prefix&gt;/share/ductile/dashboard</code> or the build tree's "
      "<code>clients/dashboard/dist</code>. None of them holds an <code>index.html</code>.</p>\n"
      "<p>Build it (needs npm), then restart the daemon:</p>\n"
      "<pre>cmake --build build --target dashboard\ncmake --install build   # or: "
      "DUCTILE_DASHBOARD_DIR=build/clients/dashboard/dist ductiled</pre>\n"
      "<p>The API is at <code>/v1</code> (see docs/api.md); the command-line client is "
      "<code>ductile</code>.</p>\n</body></html>\n";
  struct MHD_Response *resp =
      MHD_create_response_from_buffer(sizeof page - 1, (void *)page, MHD_RESPMEM_PERSISTENT);
  if (!resp) {
    r->replied = 1;
    r->status = 500;
    return;
  }
  MHD_add_response_header(resp, "Content-Type", "text/html; charset=utf-8");
  dt_reply_response(r, 404, resp);
}

/* If-None-Match holds our ETag (also as W/"..." or in a list), or is "*". */
static int etag_matches(const char *header, const char *etag) {
  return !strcmp(header, "*") || strstr(header, etag) != NULL;
}

/* rel inside the dashboard directory root, opened (*fd) with its stat: a regular file whose
 * realpath lies inside root's (a symlink out of it is not served). */
static dt_status open_inside(const char *root, const char *rel, int *fd, struct stat *sb) {
  dt_status rc = DT_OK;
  char full[PATH_MAX + 128], real[PATH_MAX];
  size_t rl = strlen(root);
  *fd = -1;
  snprintf(full, sizeof full, "%s/%s", root, rel);
  DT_CHECK(root[0] && realpath(full, real) && strncmp(real, root, rl) == 0 && real[rl] == '/', NULL,
           DT_ERR_IO, "not in the dashboard");
  *fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  DT_CHECK(*fd >= 0 && fstat(*fd, sb) == 0 && S_ISREG(sb->st_mode), NULL, DT_ERR_IO, "not a file");
cleanup:
  if (rc != DT_OK && *fd >= 0) close(*fd), *fd = -1;
  return rc;
}

/* The request's If-None-Match / If-Modified-Since match the file's validators. */
static int not_modified(dt_req *r, const char *etag, const char *lastmod) {
  const char *inm = dt_req_header(r, MHD_HTTP_HEADER_IF_NONE_MATCH);
  const char *ims = dt_req_header(r, MHD_HTTP_HEADER_IF_MODIFIED_SINCE);
  return (inm && etag_matches(inm, etag)) || (!inm && ims && !strcmp(ims, lastmod));
}

static void serve(dt_req *r, const char *rel, const char *cache_control, int index) {
  char etag[64], lastmod[64];
  struct stat sb;
  struct tm tm;
  struct MHD_Response *resp;
  unsigned status = 200;
  int fd = -1;
  if (open_inside(r->srv->dashboard_dir, rel, &fd, &sb) != DT_OK) {
    if (index)
      not_installed(r);
    else
      not_found(r);
    goto cleanup;
  }
  snprintf(etag, sizeof etag, "\"%llx-%llx%09lx\"", (unsigned long long)sb.st_size,
           (unsigned long long)sb.st_mtim.tv_sec, (unsigned long)sb.st_mtim.tv_nsec);
  gmtime_r(&sb.st_mtim.tv_sec, &tm);
  strftime(lastmod, sizeof lastmod, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (not_modified(r, etag, lastmod)) {
    status = 304;
    resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
  } else {
    resp = MHD_create_response_from_fd((uint64_t)sb.st_size, fd); /* takes fd */
    if (resp) fd = -1;
  }
  if (!resp) {
    dt_reply_error(r, 500, "internal", NULL, "cannot send the file");
    goto cleanup;
  }
  MHD_add_response_header(resp, MHD_HTTP_HEADER_ETAG, etag);
  MHD_add_response_header(resp, MHD_HTTP_HEADER_LAST_MODIFIED, lastmod);
  if (status == 200) {
    MHD_add_response_header(resp, "Content-Type", content_type(rel));
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    if (index) MHD_add_response_header(resp, "X-Frame-Options", "DENY");
  }
  dt_reply_response_cached(r, status, resp, cache_control);
cleanup:
  if (fd >= 0) close(fd);
}

void dt_h_dashboard_index(dt_req *r) { serve(r, "index.html", "no-cache", 1); }

void dt_h_dashboard_file(dt_req *r) {
  if (!name_ok(r->param[0])) {
    not_found(r);
    return;
  }
  serve(r, r->param[0], "no-cache", !strcmp(r->param[0], "index.html"));
}

void dt_h_dashboard_asset(dt_req *r) {
  char rel[128];
  if (!name_ok(r->param[0])) {
    not_found(r);
    return;
  }
  snprintf(rel, sizeof rel, "assets/%s", r->param[0]);
  serve(r, rel, "public, max-age=31536000, immutable", 0);
}
