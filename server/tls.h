/* HTTPS: the certificate and key of tls_cert and tls_key, checked at start-up.
 *
 * With both keys set the daemon speaks only HTTPS on its listen address (libmicrohttpd with
 * GnuTLS: MHD_USE_TLS and the PEM text in memory); a plain HTTP request there gets no reply, as
 * GnuTLS finds no TLS handshake in it. Everything that could stop libmicrohttpd from starting
 * is checked before, with a message naming the key and the file: a libmicrohttpd built without
 * TLS (MHD_FEATURE_TLS), a file that cannot be read, one that holds no PEM certificate or no
 * unencrypted PEM private key, and a key that does not belong to the certificate, which
 * libmicrohttpd's own set-up finds (a daemon with neither threads nor a listening socket is
 * started and stopped with them, and its message kept). A failure is a configuration error:
 * the daemon exits with status 78 before it listens.
 *
 * The files are read at every start, so a renewed certificate is taken by a restart in place
 * (SIGUSR1, systemctl reload) without dropping the queue. */
#ifndef DT_SRV_TLS_H
#define DT_SRV_TLS_H

#include "config.h"
#include "status.h"

typedef struct dt_tls {
  char *cert_pem; /* NUL-terminated PEM text; NULL: plain HTTP */
  char *key_pem;
} dt_tls;

/* Read and check cfg's tls_cert and tls_key into *tls (left empty when neither is set).
 * DT_ERR_INPUT with a message naming the key and the file when TLS cannot be used;
 * DT_ERR_NOMEM. *tls is released by dt_tls_free, also after a failure. */
dt_status dt_tls_load(const dt_config *cfg, dt_tls *tls, dt_ctx *ctx);
/* Overwrite the key's text, then free both (NULL-safe; the fields become NULL). */
void dt_tls_free(dt_tls *tls);

#endif
