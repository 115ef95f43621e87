/* Tokens and authentication (see auth.h). */
#include "auth.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "sha256.h"
#include "store.h"

int dt_random_bytes(void *buf, size_t n) {
  size_t got = 0;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  while (got < n) {
    ssize_t r = read(fd, (char *)buf + got, n - got);
    if (r <= 0 && errno != EINTR) break;
    if (r > 0) got += (size_t)r;
  }
  close(fd);
  return got == n ? 0 : -1;
}

int dt_random_hex(char *out, size_t nbytes) {
  uint8_t b[64];
  if (nbytes > sizeof b || dt_random_bytes(b, nbytes)) return -1;
  dt_hex(b, nbytes, out);
  return 0;
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
static void touch(const char *id, const char *last_used) {
  char now[40];
  sqlite3_stmt *st;
  dt_now_iso(now, sizeof now);
  if (!strncmp(now, last_used, 16)) return;
  st = dt_stmt("UPDATE tokens SET last_used_at = ?1 WHERE id = ?2");
  if (!st) return;
  dt_bind_text(st, 1, now);
  dt_bind_text(st, 2, id);
  sqlite3_step(st);
  dt_stmt_done(st);
}

int dt_auth_check(const char *authorization, dt_principal *p) {
  const char *tok;
  uint8_t hash[32];
  int rc = -1, step;
  sqlite3_stmt *st;
  char id[17], last[40] = "";
  if (!authorization || strncasecmp(authorization, "Bearer ", 7)) return -1;
  tok = authorization + 7;
  while (*tok == ' ') tok++;
  if (!token_shape_ok(tok)) return -1;
  memcpy(id, tok + 3, 16);
  id[16] = '\0';
  dt_sha256_buf(tok, DT_TOKEN_LEN, hash);
  st = dt_stmt("SELECT t.hash, t.revoked_at IS NOT NULL, t.user_id, u.role, t.last_used_at "
               "FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.id = ?1");
  if (!st) return -2;
  dt_bind_text(st, 1, id);
  step = sqlite3_step(st);
  if (step == SQLITE_ROW) {
    const void *h = sqlite3_column_blob(st, 0);
    int ok = h && sqlite3_column_bytes(st, 0) == 32 && dt_ct_equal(h, hash, 32);
    if (ok && !sqlite3_column_int(st, 1)) {
      p->user_id = sqlite3_column_int64(st, 2);
      snprintf(p->token_id, sizeof p->token_id, "%s", id);
      snprintf(p->role, sizeof p->role, "%s", dt_col_text(st, 3));
      snprintf(last, sizeof last, "%s", dt_col_text(st, 4));
      rc = 0;
    }
  } else if (step != SQLITE_DONE) {
    rc = -2;
  }
  dt_stmt_done(st);
  if (rc == 0) touch(id, last);
  return rc;
}

int dt_auth_user_ensure(const char *name, long long *user_id) {
  char now[40];
  sqlite3_stmt *st;
  int rc = 0;
  size_t n = strlen(name);
  if (n == 0 || n > 127) return -1;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    if (*p < 0x20 || *p == 0x7f) return -1;
  dt_now_iso(now, sizeof now);
  st = dt_stmt("INSERT OR IGNORE INTO users (name, role, created_at) VALUES (?1, 'user', ?2)");
  if (!st) return -1;
  dt_bind_text(st, 1, name);
  dt_bind_text(st, 2, now);
  if (sqlite3_step(st) != SQLITE_DONE) rc = dt_store_fail("create user");
  dt_stmt_done(st);
  if (rc == DT_STORE_ERR) return -1;
  st = dt_stmt("SELECT id FROM users WHERE name = ?1");
  if (!st) return -1;
  dt_bind_text(st, 1, name);
  rc = -1;
  if (sqlite3_step(st) == SQLITE_ROW) {
    *user_id = sqlite3_column_int64(st, 0);
    rc = 0;
  }
  dt_stmt_done(st);
  return rc;
}

int dt_auth_token_create(long long user_id, const char *name, char *token, char *id) {
  char secret[65], now[40];
  uint8_t hash[32];
  sqlite3_stmt *st;
  int rc;
  if (dt_random_hex(id, 8) || dt_random_hex(secret, 32)) return -1;
  snprintf(token, DT_TOKEN_LEN + 1, "dt_%s_%s", id, secret);
  dt_sha256_buf(token, DT_TOKEN_LEN, hash);
  dt_now_iso(now, sizeof now);
  st = dt_stmt("INSERT INTO tokens (id, user_id, name, hash, created_at) VALUES (?1, ?2, ?3, ?4, ?5)");
  if (!st) return -1;
  dt_bind_text(st, 1, id);
  sqlite3_bind_int64(st, 2, user_id);
  dt_bind_text(st, 3, name);
  sqlite3_bind_blob(st, 4, hash, 32, SQLITE_TRANSIENT);
  dt_bind_text(st, 5, now);
  rc = sqlite3_step(st) == SQLITE_DONE ? 0 : dt_store_fail("create token");
  dt_stmt_done(st);
  return rc;
}

json_t *dt_auth_token_list(void) {
  json_t *arr = json_array();
  sqlite3_stmt *st = dt_stmt("SELECT t.id, t.name, u.name, t.created_at, t.last_used_at, t.revoked_at "
                             "FROM tokens t JOIN users u ON u.id = t.user_id ORDER BY t.created_at, t.id");
  int step;
  if (!st || !arr) {
    json_decref(arr);
    return NULL;
  }
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "id", dt_col_text(st, 0), "name", dt_col_text(st, 1),
                          "user", dt_col_text(st, 2), "created_at", dt_col_text(st, 3));
    json_object_set_new(o, "last_used_at", sqlite3_column_type(st, 4) == SQLITE_NULL ? json_null()
                                                                                   : json_string(dt_col_text(st, 4)));
    json_object_set_new(o, "revoked_at", sqlite3_column_type(st, 5) == SQLITE_NULL ? json_null()
                                                                                 : json_string(dt_col_text(st, 5)));
    json_array_append_new(arr, o);
  }
  dt_stmt_done(st);
  if (step != SQLITE_DONE) {
    json_decref(arr);
    return NULL;
  }
  return arr;
}

int dt_auth_token_revoke(const char *id) {
  char now[40];
  int rc;
  sqlite3_stmt *st = dt_stmt("UPDATE tokens SET revoked_at = ?1 WHERE id = ?2 AND revoked_at IS NULL");
  if (!st) return DT_STORE_ERR;
  dt_now_iso(now, sizeof now);
  dt_bind_text(st, 1, now);
  dt_bind_text(st, 2, id);
  rc = sqlite3_step(st) == SQLITE_DONE ? (sqlite3_changes(dt_db()) == 1 ? 0 : DT_STORE_NOTFOUND)
                                       : dt_store_fail("revoke token");
  dt_stmt_done(st);
  return rc;
}

static int write_token_file(const char *path, const char *token) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  size_t n = strlen(token);
  int ok;
  if (fd < 0) return -1;
  ok = fchmod(fd, 0600) == 0 && write(fd, token, n) == (ssize_t)n && write(fd, "\n", 1) == 1 && fsync(fd) == 0;
  return (close(fd) == 0 && ok) ? 0 : -1;
}

int dt_auth_bootstrap(const char *data_dir) {
  char token[DT_TOKEN_LEN + 1], id[17], now[40], path[1200];
  sqlite3_stmt *st = dt_stmt("SELECT COUNT(*) FROM users");
  long long n = -1, uid;
  if (!st) return -1;
  if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  dt_stmt_done(st);
  if (n != 0) return n > 0 ? 0 : -1;
  dt_now_iso(now, sizeof now);
  if (dt_store_begin()) return -1;
  st = dt_stmt("INSERT INTO users (name, role, created_at) VALUES ('admin', 'admin', ?1)");
  if (!st) goto fail;
  dt_bind_text(st, 1, now);
  if (sqlite3_step(st) != SQLITE_DONE) {
    dt_stmt_done(st);
    goto fail;
  }
  dt_stmt_done(st);
  uid = sqlite3_last_insert_rowid(dt_db());
  if (dt_auth_token_create(uid, "admin (first start)", token, id)) goto fail;
  snprintf(path, sizeof path, "%s/admin.token", data_dir);
  if (write_token_file(path, token)) {
    dt_log_error("cannot write %s: %s", path, strerror(errno));
    goto fail;
  }
  if (dt_store_commit()) goto fail;
  {
    const char *kv[] = {"path", path, "token_id", id, NULL};
    dt_log(DT_LOG_INFO, NULL, kv, "first start: created user admin and its token (mode 0600)");
  }
  return 0;
fail:
  dt_store_rollback();
  return -1;
}
