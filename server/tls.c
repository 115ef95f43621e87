/* The certificate and key of HTTPS, read and checked before the daemon listens (see tls.h). */
#include "tls.h"

#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

/* A PEM certificate chain or key is a few KiB; a larger file is something else. */
#define PEM_MAX (1 << 20)

/* The text of the PEM file at path, for the key called key (messages), into *out. */
static dt_status read_pem(const char *key, const char *path, char **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  struct stat sb;
  size_t got = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  *out = NULL;
  DT_CHECK(fd >= 0, ctx, DT_ERR_INPUT, "%s: cannot read '%s': %s", key, path, strerror(errno));
  DT_CHECK(fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode), ctx, DT_ERR_INPUT,
           "%s: '%s' is not a regular file", key, path);
  DT_CHECK(sb.st_size > 0 && sb.st_size <= PEM_MAX, ctx, DT_ERR_INPUT,
           "%s: '%s' is %s: not a PEM file", key, path, sb.st_size ? "larger than 1 MiB" : "empty");
  DT_ALLOC(*out, (size_t)sb.st_size + 1, ctx, "a PEM file");
  while (got < (size_t)sb.st_size) {
    ssize_t n = read(fd, *out + got, (size_t)sb.st_size - got);
    DT_CHECK(n > 0 || (n < 0 && errno == EINTR), ctx, DT_ERR_INPUT, "%s: cannot read '%s': %s", key,
             path, n == 0 ? "it became shorter while it was read" : strerror(errno));
    if (n > 0) got += (size_t)n;
  }
  (*out)[got] = '\0';
  /* The key is the server's identity: anyone who can read it can impersonate the server. */
  if (!strcmp(key, "tls_key") && (sb.st_mode & 077))
    dt_log_warn("tls_key: '%s' can be read by other users than its owner (mode %04o): chmod 600 it",
                path, (unsigned)(sb.st_mode & 07777));
cleanup:
  if (fd >= 0) close(fd);
  return rc;
}

/* What libmicrohttpd says while it sets up the probe: its first line (the cause; the lines
 * after it say that the start failed). */
typedef struct probe_log {
  char msg[400];
} probe_log;

static void probe_logger(void *cls, const char *fmt, va_list ap) {
  probe_log *p = cls;
  if (p->msg[0]) return;
  vsnprintf(p->msg, sizeof p->msg, fmt, ap);
  p->msg[strcspn(p->msg, "\n")] = '\0';
}

static enum MHD_Result probe_handler(void *cls, struct MHD_Connection *conn, const char *url,
                                     const char *method, const char *version, const char *data,
                                     size_t *data_size, void **con_cls) {
  (void)cls, (void)conn, (void)url, (void)method, (void)version, (void)data, (void)data_size,
      (void)con_cls;
  return MHD_NO;
}

/* libmicrohttpd's own TLS set-up of the certificate and key (GnuTLS: parsing both, and whether
 * the key is the certificate's), in a daemon with no listening socket and no thread, started
 * and stopped at once: the real start would fail the same way, with only "cannot start". */
static dt_status probe(const dt_config *cfg, const dt_tls *tls, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  probe_log log;
  struct MHD_Daemon *d;
  memset(&log, 0, sizeof log);
  d = MHD_start_daemon(MHD_USE_TLS | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ERROR_LOG, 0, NULL, NULL,
                       probe_handler, NULL, MHD_OPTION_EXTERNAL_LOGGER, probe_logger, &log,
                       MHD_OPTION_HTTPS_MEM_KEY, tls->key_pem, MHD_OPTION_HTTPS_MEM_CERT,
                       tls->cert_pem, MHD_OPTION_END);
  DT_CHECK(d != NULL, ctx, DT_ERR_INPUT, "tls_cert '%s' and tls_key '%s' cannot be used: %s",
           cfg->tls_cert, cfg->tls_key, log.msg[0] ? log.msg : "libmicrohttpd refuses them");
cleanup:
  if (d) MHD_stop_daemon(d);
  return rc;
}

dt_status dt_tls_load(const dt_config *cfg, dt_tls *tls, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  memset(tls, 0, sizeof *tls);
  if (!cfg->tls_cert[0]) return DT_OK;
  DT_CHECK(MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES, ctx, DT_ERR_INPUT,
           "tls_cert, tls_key: this libmicrohttpd is built without TLS (MHD_FEATURE_TLS): use one "
           "built with GnuTLS (Debian's libmicrohttpd12 is), or unset both and terminate TLS in a "
           "reverse proxy (docs/operations.md)");
  DT_TRY(read_pem("tls_cert", cfg->tls_cert, &tls->cert_pem, ctx));
  DT_TRY(read_pem("tls_key", cfg->tls_key, &tls->key_pem, ctx));
  DT_CHECK(strstr(tls->cert_pem, "-----BEGIN CERTIFICATE-----") != NULL, ctx, DT_ERR_INPUT,
           "tls_cert: '%s' holds no PEM certificate (no -----BEGIN CERTIFICATE----- line)",
           cfg->tls_cert);
  DT_CHECK(!strstr(tls->key_pem, "ENCRYPTED"), ctx, DT_ERR_INPUT,
           "tls_key: '%s' holds an encrypted private key: the daemon reads it unattended, so it "
           "takes the key unencrypted (protect the file instead: mode 0600, owned by the daemon's "
           "user)",
           cfg->tls_key);
  DT_CHECK(strstr(tls->key_pem, "-----BEGIN") && strstr(tls->key_pem, "PRIVATE KEY-----"), ctx,
           DT_ERR_INPUT,
           "tls_key: '%s' holds no PEM private key (no -----BEGIN ... PRIVATE KEY----- line)",
           cfg->tls_key);
  DT_TRY(probe(cfg, tls, ctx));
cleanup:
  return rc;
}

void dt_tls_free(dt_tls *tls) {
  if (tls->key_pem) explicit_bzero(tls->key_pem, strlen(tls->key_pem));
  DT_FREE(tls->key_pem);
  DT_FREE(tls->cert_pem);
}
