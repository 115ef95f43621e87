/* Tokens and authentication (see auth.h). */
#include "auth.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "sha256.h"
#include "store.h"

dt_status dt_random_bytes(void *buf, size_t n, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  size_t got = 0;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  DT_CHECK(fd >= 0, ctx, DT_ERR_IO, "cannot open /dev/urandom: %s", strerror(errno));
  while (got < n) {
    ssize_t r = read(fd, (char *)buf + got, n - got);
    DT_CHECK(r > 0 || (r < 0 && errno == EINTR), ctx, DT_ERR_IO, "cannot read /dev/urandom: %s",
             r == 0 ? "end of file" : strerror(errno));
    if (r > 0) got += (size_t)r;
  }
cleanup:
  if (fd >= 0) close(fd);
  return rc;
}

dt_status dt_random_hex(char *out, size_t nbytes, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  uint8_t b[64];
  DT_CHECK(nbytes <= sizeof b, ctx, DT_ERR_INTERNAL, "%zu random bytes asked for, at most %zu",
           nbytes, sizeof b);
  DT_TRY(dt_random_bytes(b, nbytes, ctx));
  dt_hex(b, nbytes, out);
cleanup:
  return rc;
}

int dt_ct_equal(const void *a, const void *b, size_t n) {
  const volatile uint8_t *x = a, *y = b;
  uint8_t d = 0;
  for (size_t i = 0; i < n; i++) d |= (uint8_t)(x[i] ^ y[i]);
  return d == 0;
}

static int is_hex(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return 0;
  return 1;
}

/* "dt_" + 16 hex + "_" + 64 hex. */
static int token_shape_ok(const char *t) {
  return strlen(t) == DT_TOKEN_LEN && !strncmp(t, "dt_", 3) && is_hex(t + 3, 16) && t[19] == '_' &&
         is_hex(t + 20, 64);
}

/* Record use at most once a minute, so that authentication does not write on every request. */
static dt_status touch(const char *id, const char *last_used, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char now[40];
  dt_sql *st = NULL;
  dt_now_iso(now, sizeof now);
  if (!strncmp(now, last_used, 16)) return DT_OK;
  DT_TRY(dt_stmt("UPDATE tokens SET last_used_at = ?1 WHERE id = ?2", &st, ctx));
  dt_bind_text(st, 1, now);
  dt_bind_text(st, 2, id);
  DT_TRY(dt_stmt_run(&st, "record token use", NULL, ctx));
cleanup:
  dt_stmt_done(&st);
  return rc;
}

/* The token's row: accepted (p filled, *outcome DT_DONE) when its hash matches, it is not
 * revoked and its user is not disabled; *last_used receives when it was last used. */
static dt_status token_lookup(const char *id, const uint8_t hash[32], dt_principal *p,
                              char *last_used, size_t len, dt_outcome *outcome, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  const void *h;
  int row, hlen = 0;
  DT_TRY(dt_stmt(
      "SELECT t.hash, t.revoked_at IS NOT NULL OR u.disabled_at IS NOT NULL, t.user_id, u.role, "
      "t.last_used_at FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.id = ?1",
      &st, ctx));
  dt_bind_text(st, 1, id);
  DT_TRY(dt_stmt_row(st, "find token", &row, ctx));
  if (!row) goto cleanup;
  h = dt_col_blob(st, 0, &hlen);
  if (!h || hlen != 32 || !dt_ct_equal(h, hash, 32) || dt_col_int(st, 1)) goto cleanup;
  p->user_id = dt_col_int64(st, 2);
  snprintf(p->token_id, sizeof p->token_id, "%s", id);
  snprintf(p->role, sizeof p->role, "%s", dt_col_text(st, 3));
  snprintf(last_used, len, "%s", dt_col_text(st, 4));
  *outcome = DT_DONE;
cleanup:
  dt_stmt_done(&st);
  return rc;
}

dt_status dt_auth_check(const char *authorization, dt_principal *p, dt_outcome *outcome,
                        dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const char *tok;
  uint8_t hash[32];
  char id[17], last[40] = "";
  *outcome = DT_NOT_FOUND;
  if (!authorization || strncasecmp(authorization, "Bearer ", 7)) return DT_OK;
  tok = authorization + 7;
  while (*tok == ' ') tok++;
  if (!token_shape_ok(tok)) return DT_OK;
  memcpy(id, tok + 3, 16);
  id[16] = '\0';
  dt_sha256_buf(tok, DT_TOKEN_LEN, hash);
  DT_TRY(token_lookup(id, hash, p, last, sizeof last, outcome, ctx));
  /* A missed update of last_used_at is harmless: the request goes on without it. */
  if (*outcome == DT_DONE) (void)touch(id, last, NULL);
cleanup:
  return rc;
}

long long dt_principal_owner(const dt_principal *p) {
  return strcmp(p->role, "admin") ? p->user_id : DT_ANY_OWNER;
}

dt_status dt_auth_token_active(const char *token_id, int *active, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  *active = 0;
  DT_TRY(dt_stmt("SELECT 1 FROM tokens t JOIN users u ON u.id = t.user_id "
                 "WHERE t.id = ?1 AND t.revoked_at IS NULL AND u.disabled_at IS NULL",
                 &st, ctx));
  dt_bind_text(st, 1, token_id);
  DT_TRY(dt_stmt_row(st, "check token", active, ctx));
cleanup:
  dt_stmt_done(&st);
  return rc;
}

/* A user's or a token's name: the API returns it in every job and mesh object (owner,
 * owner_token), as a JSON string, which cannot carry anything but UTF-8 (a name Jansson
 * refuses would leave those objects without it). No control characters, at most 127 bytes. */
static int name_ok(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n > 127 || dt_utf8_invalid_at(name, n) != n) return 0;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    if (*p < 0x20 || *p == 0x7f) return 0;
  return 1;
}

/* Create user `name` with `role` unless it exists, audited as user.add by who; *created (may be
 * NULL) says which. In the caller's transaction. */
static dt_status insert_user(const char *name, const char *role, const dt_actor *who, int *created,
                             dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char now[40];
  dt_sql *st = NULL;
  json_t *details = NULL;
  int changes = 0;
  DT_CHECK(name_ok(name), ctx, DT_ERR_INPUT,
           "user: expected a name of 1 to 127 bytes of UTF-8 without control characters");
  dt_now_iso(now, sizeof now);
  DT_TRY(dt_stmt("INSERT INTO users (name, role, created_at) VALUES (?1, ?2, ?3) "
                 "ON CONFLICT DO NOTHING",
                 &st, ctx));
  dt_bind_text(st, 1, name);
  dt_bind_text(st, 2, role);
  dt_bind_text(st, 3, now);
  DT_TRY(dt_stmt_run(&st, "create user", &changes, ctx));
  if (created) *created = changes == 1;
  if (changes != 1) goto cleanup;
  details = json_pack("{s:s}", "role", role);
  DT_TRY(dt_audit(who, "user.add", name, 0, details, ctx));
cleanup:
  dt_stmt_done(&st);
  json_decref(details);
  return rc;
}

dt_status dt_auth_user_ensure(const char *name, const dt_actor *who, long long *user_id,
                              int *disabled, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int row, began = 0;
  DT_TRY(dt_store_begin_if_none(&began, ctx));
  DT_TRY(insert_user(name, "user", who, NULL, ctx));
  DT_TRY(dt_stmt("SELECT id, disabled_at IS NOT NULL FROM users WHERE name = ?1", &st, ctx));
  dt_bind_text(st, 1, name);
  DT_TRY(dt_stmt_row(st, "find user", &row, ctx));
  DT_CHECK(row, ctx, DT_ERR_DB, "database error (find user): no user %s after creating it", name);
  *user_id = dt_col_int64(st, 0);
  if (disabled) *disabled = dt_col_int(st, 1);
  dt_stmt_done(&st);
  if (began) DT_TRY(dt_store_commit(ctx));
cleanup:
  dt_stmt_done(&st);
  if (began) dt_store_rollback();
  return rc;
}

dt_status dt_auth_user_add(const char *name, int admin, const dt_actor *who, dt_outcome *outcome,
                           dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int created = 0;
  *outcome = DT_REFUSED;
  DT_TRY(dt_store_begin(ctx));
  DT_TRY(insert_user(name, admin ? "admin" : "user", who, &created, ctx));
  DT_TRY(dt_store_commit(ctx));
  if (created) *outcome = DT_DONE;
cleanup:
  dt_store_rollback();
  return rc;
}

dt_status dt_auth_user_disable(const char *name, int disable, const dt_actor *who,
                               dt_outcome *outcome, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char now[40];
  dt_sql *st = NULL;
  int row, changes = 0;
  *outcome = DT_NOT_FOUND;
  DT_TRY(dt_store_begin(ctx));
  DT_TRY(dt_stmt("SELECT disabled_at IS NOT NULL FROM users WHERE name = ?1", &st, ctx));
  dt_bind_text(st, 1, name);
  DT_TRY(dt_stmt_row(st, "find user", &row, ctx));
  if (!row) goto cleanup;
  *outcome = dt_col_int(st, 0) == !!disable ? DT_REFUSED : DT_DONE;
  dt_stmt_done(&st);
  if (*outcome != DT_DONE) goto cleanup;
  dt_now_iso(now, sizeof now);
  DT_TRY(dt_stmt("UPDATE users SET disabled_at = ?2 WHERE name = ?1", &st, ctx));
  dt_bind_text(st, 1, name);
  dt_bind_text(st, 2, disable ? now : NULL);
  DT_TRY(dt_stmt_run(&st, disable ? "disable user" : "enable user", &changes, ctx));
  DT_CHECK(changes == 1, ctx, DT_ERR_DB,
           "database error (disable user): user %s changed %d rows, expected 1", name, changes);
  DT_TRY(dt_audit(who, disable ? "user.disable" : "user.enable", name, 0, NULL, ctx));
  DT_TRY(dt_store_commit(ctx));
cleanup:
  dt_stmt_done(&st);
  dt_store_rollback();
  return rc;
}

dt_status dt_auth_user_share(const char *name, double share, const dt_actor *who,
                             dt_outcome *outcome, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  json_t *details = NULL;
  double before = 0;
  int row;
  *outcome = DT_NOT_FOUND;
  /* NaN fails every comparison: !(share > 0) refuses it with the others. */
  DT_CHECK(isfinite(share) && share > 0 && share <= DT_SHARE_MAX, ctx, DT_ERR_INPUT,
           "share: expected a finite weight above 0 and at most %g (got %g)", DT_SHARE_MAX, share);
  DT_TRY(dt_store_begin(ctx));
  DT_TRY(dt_stmt("SELECT share FROM users WHERE name = ?1", &st, ctx));
  dt_bind_text(st, 1, name);
  DT_TRY(dt_stmt_row(st, "find user", &row, ctx));
  if (!row) goto cleanup;
  before = dt_col_double(st, 0);
  dt_stmt_done(&st);
  DT_TRY(dt_stmt("UPDATE users SET share = ?2 WHERE name = ?1", &st, ctx));
  dt_bind_text(st, 1, name);
  dt_bind_double(st, 2, share);
  DT_TRY(dt_stmt_run(&st, "set the user's share", NULL, ctx));
  details = json_pack("{s:f, s:f}", "share", share, "previous", before);
  DT_TRY(dt_audit(who, "user.share", name, 0, details, ctx));
  DT_TRY(dt_store_commit(ctx));
  *outcome = DT_DONE;
cleanup:
  dt_stmt_done(&st);
  dt_store_rollback();
  json_decref(details);
  return rc;
}

dt_status dt_auth_token_create(long long user_id, const char *name, const dt_actor *who,
                               char *token, char *id, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char secret[65], now[40];
  uint8_t hash[32];
  dt_sql *st = NULL;
  json_t *details = NULL;
  int began = 0;
  DT_CHECK(name_ok(name), ctx, DT_ERR_INPUT,
           "token: expected a name of 1 to 127 bytes of UTF-8 without control characters");
  DT_TRY(dt_store_begin_if_none(&began, ctx));
  DT_TRY(dt_random_hex(id, 8, ctx));
  DT_TRY(dt_random_hex(secret, 32, ctx));
  snprintf(token, DT_TOKEN_LEN + 1, "dt_%s_%s", id, secret);
  dt_sha256_buf(token, DT_TOKEN_LEN, hash);
  dt_now_iso(now, sizeof now);
  DT_TRY(dt_stmt(
      "INSERT INTO tokens (id, user_id, name, hash, created_at) VALUES (?1, ?2, ?3, ?4, ?5)", &st,
      ctx));
  dt_bind_text(st, 1, id);
  dt_bind_int64(st, 2, user_id);
  dt_bind_text(st, 3, name);
  dt_bind_blob(st, 4, hash, 32);
  dt_bind_text(st, 5, now);
  DT_TRY(dt_stmt_run(&st, "create token", NULL, ctx));
  details = json_pack("{s:s}", "name", name);
  DT_TRY(dt_audit(who, "token.create", id, user_id, details, ctx));
  if (began) DT_TRY(dt_store_commit(ctx));
cleanup:
  dt_stmt_done(&st);
  if (began) dt_store_rollback();
  json_decref(details);
  return rc;
}

static json_t *opt_text(dt_sql *st, int i) {
  return dt_col_null(st, i) ? json_null() : json_string(dt_col_text(st, i));
}

dt_status dt_auth_token_list(json_t **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  json_t *list = json_array();
  int row;
  *out = NULL;
  DT_CHECK(list != NULL, ctx, DT_ERR_NOMEM, "out of memory listing tokens");
  DT_TRY(dt_stmt("SELECT t.id, t.name, u.name, t.created_at, t.last_used_at, t.revoked_at "
                 "FROM tokens t JOIN users u ON u.id = t.user_id ORDER BY t.created_at, t.id",
                 &st, ctx));
  for (;;) {
    json_t *o;
    DT_TRY(dt_stmt_row(st, "list tokens", &row, ctx));
    if (!row) break;
    o = json_pack("{s:s, s:s, s:s, s:s}", "id", dt_col_text(st, 0), "name", dt_col_text(st, 1),
                  "user", dt_col_text(st, 2), "created_at", dt_col_text(st, 3));
    json_object_set_new(o, "last_used_at", opt_text(st, 4));
    json_object_set_new(o, "revoked_at", opt_text(st, 5));
    json_array_append_new(list, o);
  }
  *out = list;
  list = NULL;
cleanup:
  dt_stmt_done(&st);
  json_decref(list);
  return rc;
}

dt_status dt_auth_user_list(json_t **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  json_t *list = json_array();
  int row;
  *out = NULL;
  DT_CHECK(list != NULL, ctx, DT_ERR_NOMEM, "out of memory listing users");
  DT_TRY(dt_stmt("SELECT u.name, u.role, u.created_at, u.disabled_at, "
                 "(SELECT COUNT(*) FROM tokens t WHERE t.user_id = u.id AND t.revoked_at IS NULL), "
                 "u.share FROM users u ORDER BY u.id",
                 &st, ctx));
  for (;;) {
    json_t *o;
    DT_TRY(dt_stmt_row(st, "list users", &row, ctx));
    if (!row) break;
    o = json_pack("{s:s, s:s, s:s, s:I}", "name", dt_col_text(st, 0), "role", dt_col_text(st, 1),
                  "created_at", dt_col_text(st, 2), "tokens", (json_int_t)dt_col_int64(st, 4));
    json_object_set_new(o, "disabled_at", opt_text(st, 3));
    json_object_set_new(o, "share", json_real(dt_col_double(st, 5)));
    json_array_append_new(list, o);
  }
  *out = list;
  list = NULL;
cleanup:
  dt_stmt_done(&st);
  json_decref(list);
  return rc;
}

/* The audit record of token id's revocation: its user as the owner, its name in the details. */
static dt_status audit_revoke(const char *id, const dt_actor *who, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  json_t *details = NULL;
  long long user_id = 0;
  int row;
  DT_TRY(dt_stmt("SELECT user_id, name FROM tokens WHERE id = ?1", &st, ctx));
  dt_bind_text(st, 1, id);
  DT_TRY(dt_stmt_row(st, "find the revoked token", &row, ctx));
  if (row) {
    user_id = dt_col_int64(st, 0);
    details = json_pack("{s:s}", "name", dt_col_text(st, 1));
  }
  dt_stmt_done(&st);
  DT_TRY(dt_audit(who, "token.revoke", id, user_id, details, ctx));
cleanup:
  dt_stmt_done(&st);
  json_decref(details);
  return rc;
}

dt_status dt_auth_token_revoke(const char *id, const dt_actor *who, dt_outcome *outcome,
                               dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char now[40];
  dt_sql *st = NULL;
  int changes = 0;
  *outcome = DT_NOT_FOUND;
  DT_TRY(dt_store_begin(ctx));
  DT_TRY(
      dt_stmt("UPDATE tokens SET revoked_at = ?1 WHERE id = ?2 AND revoked_at IS NULL", &st, ctx));
  dt_now_iso(now, sizeof now);
  dt_bind_text(st, 1, now);
  dt_bind_text(st, 2, id);
  DT_TRY(dt_stmt_run(&st, "revoke token", &changes, ctx));
  if (changes != 1) goto cleanup;
  DT_TRY(audit_revoke(id, who, ctx));
  DT_TRY(dt_store_commit(ctx));
  *outcome = DT_DONE;
cleanup:
  dt_stmt_done(&st);
  dt_store_rollback();
  return rc;
}

static dt_status write_token_file(const char *path, const char *token, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  size_t n = strlen(token);
  DT_CHECK(fd >= 0, ctx, DT_ERR_IO, "cannot create %s: %s", path, strerror(errno));
  DT_CHECK(fchmod(fd, 0600) == 0 && write(fd, token, n) == (ssize_t)n && write(fd, "\n", 1) == 1 &&
               fsync(fd) == 0,
           ctx, DT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
cleanup:
  if (fd >= 0 && close(fd) != 0 && rc == DT_OK)
    rc = DT_ERROR(ctx, DT_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  return rc;
}

static dt_status count_users(long long *n, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int row;
  DT_TRY(dt_stmt("SELECT COUNT(*) FROM users", &st, ctx));
  DT_TRY(dt_stmt_row(st, "count users", &row, ctx));
  *n = row ? dt_col_int64(st, 0) : 0;
cleanup:
  dt_stmt_done(&st);
  return rc;
}

dt_status dt_auth_bootstrap(const char *data_dir, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char token[DT_TOKEN_LEN + 1], id[17], path[1200];
  dt_sql *st = NULL;
  long long n = 0, admin = 0;
  dt_actor daemon;
  int row = 0;
  dt_actor_daemon(&daemon);
  DT_TRY(count_users(&n, ctx));
  if (n > 0) goto cleanup;
  DT_TRY(dt_store_begin(ctx));
  DT_TRY(insert_user("admin", "admin", &daemon, NULL, ctx));
  DT_TRY(dt_stmt("SELECT id FROM users WHERE name = 'admin'", &st, ctx));
  DT_TRY(dt_stmt_row(st, "find the admin user", &row, ctx));
  DT_CHECK(row, ctx, DT_ERR_DB, "database error: no user admin after creating it");
  admin = dt_col_int64(st, 0);
  dt_stmt_done(&st);
  DT_TRY(dt_auth_token_create(admin, "admin (first start)", &daemon, token, id, ctx));
  snprintf(path, sizeof path, "%s/admin.token", data_dir);
  DT_TRY(write_token_file(path, token, ctx));
  DT_TRY(dt_store_commit(ctx));
  {
    const char *kv[] = {"path", path, "token_id", id, NULL};
    dt_log(DT_LOG_INFO, NULL, kv, "first start: created user admin and its token (mode 0600)");
  }
cleanup:
  dt_stmt_done(&st);
  dt_store_rollback();
  return rc;
}
