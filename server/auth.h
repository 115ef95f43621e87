/* API tokens: random, stored only as SHA-256 hashes, compared in constant time.
 *
 * A token is "dt_<id>_<secret>": id is 16 hex digits (public: it names the token in lists and
 * revocation), secret is 64 hex digits from /dev/urandom. The database keeps SHA-256 of the
 * whole token. A request's token is found by its id and accepted when the hash matches
 * (constant-time comparison) and the token is not revoked. Tokens belong to users; the first
 * start creates the user "admin" and its token (<data dir>/admin.token, mode 0600). */
#ifndef DT_SRV_AUTH_H
#define DT_SRV_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "status.h"

#define DT_TOKEN_LEN 84

typedef struct dt_principal {
  long long user_id;
  char token_id[17];
  char role[16];
} dt_principal;

/* Fill buf with n random bytes from /dev/urandom. */
dt_status dt_random_bytes(void *buf, size_t n, dt_ctx *ctx);
/* n random bytes (at most 64) as lower-case hex into out (2n + 1 bytes). */
dt_status dt_random_hex(char *out, size_t nbytes, dt_ctx *ctx);
/* Constant-time comparison of n bytes: 1 if equal. */
int dt_ct_equal(const void *a, const void *b, size_t n);

/* Check an Authorization header value: *outcome DT_DONE with p filled for a valid token,
 * DT_NOT_FOUND when it is missing, malformed, unknown or revoked (401). */
dt_status dt_auth_check(const char *authorization, dt_principal *p, dt_outcome *outcome, dt_ctx *ctx);

/* The id of the user called name, created (role "user") when missing. DT_ERR_INPUT for a name
 * that is empty, longer than 127 bytes or has control characters. */
dt_status dt_auth_user_ensure(const char *name, long long *user_id, dt_ctx *ctx);
/* Create a token for user_id; token receives DT_TOKEN_LEN + 1 bytes, id 17 bytes. */
dt_status dt_auth_token_create(long long user_id, const char *name, char *token, char *id, dt_ctx *ctx);
/* JSON array of the tokens (never their hashes). */
dt_status dt_auth_token_list(json_t **out, dt_ctx *ctx);
/* Revoke by id (*outcome DT_NOT_FOUND when no active token has it). */
dt_status dt_auth_token_revoke(const char *id, dt_outcome *outcome, dt_ctx *ctx);

/* First start: when there are no users, create "admin" and a token written to
 * <data_dir>/admin.token with mode 0600, and log where it is. */
dt_status dt_auth_bootstrap(const char *data_dir, dt_ctx *ctx);

#endif
