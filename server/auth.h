/* API tokens: random, stored only as SHA-256 hashes, compared in constant time.
 *
 * A token is "dt_<id>_<secret>": id is 16 hex digits (public: it names the token in lists and
 * revocation), secret is 64 hex digits from /dev/urandom. The database keeps SHA-256 of the
 * whole token. A request's token is found by its id and accepted when the hash matches
 * (constant-time comparison), the token is not revoked and its user is not disabled. Tokens
 * belong to users, with a role: "admin" sees and acts on every user's jobs and meshes, "user"
 * only on its own (dt_principal_owner). The first start creates the user "admin" (role admin)
 * and its token (<data dir>/admin.token, mode 0600). */
#ifndef DT_SRV_AUTH_H
#define DT_SRV_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "audit.h"
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
 * DT_NOT_FOUND when it is missing, malformed, unknown or revoked, or its user is disabled
 * (401). */
dt_status dt_auth_check(const char *authorization, dt_principal *p, dt_outcome *outcome,
                        dt_ctx *ctx);
/* The owner the principal's lookups of jobs and meshes are limited to: its user, or
 * DT_ANY_OWNER for an admin (status.h). */
long long dt_principal_owner(const dt_principal *p);
/* Whether the token still authenticates (not revoked, its user not disabled): an open event
 * stream asks this while it lasts, since revocation and disabling come from the command line,
 * another process. One lookup by the tokens' primary key. */
dt_status dt_auth_token_active(const char *token_id, int *active, dt_ctx *ctx);

/* The id of the user called name, created (role "user", audited as user.add by who) when
 * missing; *disabled (may be NULL) says whether it is disabled. DT_ERR_INPUT for a name that is
 * empty, longer than 127 bytes, not UTF-8 or has control characters. */
dt_status dt_auth_user_ensure(const char *name, const dt_actor *who, long long *user_id,
                              int *disabled, dt_ctx *ctx);
/* Create the user name with role "admin" (admin != 0) or "user", audited as user.add by who;
 * *outcome DT_REFUSED when a user has this name already. DT_ERR_INPUT for a bad name, as
 * dt_auth_user_ensure. */
dt_status dt_auth_user_add(const char *name, int admin, const dt_actor *who, dt_outcome *outcome,
                           dt_ctx *ctx);
/* JSON array of the users: name, role, share, created_at, disabled_at (null: enabled), tokens
 * (how many are not revoked). */
dt_status dt_auth_user_list(json_t **out, dt_ctx *ctx);
/* Disable (disable != 0) or enable the user name, audited as user.disable or user.enable by
 * who: *outcome DT_NOT_FOUND when there is no such user, DT_REFUSED when it is disabled
 * (enabled) already. Disabling takes effect on the user's next request and within a second on
 * its open event streams (sse.c). */
dt_status dt_auth_user_disable(const char *name, int disable, const dt_actor *who,
                               dt_outcome *outcome, dt_ctx *ctx);
/* The user's fair-share weight (users.share): a user of share 2 is given twice the worker time
 * of a user of share 1 (store_jobs.h, dt_job_claim). share must be finite, above 0 and at most
 * DT_SHARE_MAX (DT_ERR_INPUT otherwise, saying which); audited as user.share by who, with the
 * share before and after. *outcome DT_NOT_FOUND when there is no such user. A running daemon
 * uses it from the next job a worker takes. */
#define DT_SHARE_MAX 1000.0
dt_status dt_auth_user_share(const char *name, double share, const dt_actor *who,
                             dt_outcome *outcome, dt_ctx *ctx);
/* Create a token called name for user_id, audited as token.create by who (in the caller's
 * transaction when one is open); token receives DT_TOKEN_LEN + 1 bytes, id 17 bytes.
 * DT_ERR_INPUT for a name that a user's name could not be (dt_auth_user_ensure). */
dt_status dt_auth_token_create(long long user_id, const char *name, const dt_actor *who,
                               char *token, char *id, dt_ctx *ctx);
/* JSON array of the tokens (never their hashes). */
dt_status dt_auth_token_list(json_t **out, dt_ctx *ctx);
/* Revoke by id, audited as token.revoke by who (*outcome DT_NOT_FOUND when no active token has
 * it). */
dt_status dt_auth_token_revoke(const char *id, const dt_actor *who, dt_outcome *outcome,
                               dt_ctx *ctx);

/* First start: when there are no users, create "admin" and a token written to
 * <data_dir>/admin.token with mode 0600 (both audited, by the daemon), and log where it is. */
dt_status dt_auth_bootstrap(const char *data_dir, dt_ctx *ctx);

#endif
