/* The audit log (see audit.h): rows of the audit table, and their lines in the daemon's log once
 * the transaction that wrote them commits. */
#include "audit.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "store.h"

void dt_actor_cli(dt_actor *a, char *name, char *unix_name, size_t cap) {
  struct passwd pw, *found = NULL;
  char buf[4096];
  const char *sudo = getenv("SUDO_USER");
  memset(a, 0, sizeof *a);
  if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &found) == 0 && found)
    snprintf(unix_name, cap, "%s", pw.pw_name);
  else
    snprintf(unix_name, cap, "uid %u", (unsigned)geteuid());
  snprintf(name, cap, "%s", sudo && sudo[0] ? sudo : unix_name);
  a->via = "cli";
  a->name = name;
  a->unix_user = unix_name;
}

void dt_actor_daemon(dt_actor *a) {
  memset(a, 0, sizeof *a);
  a->via = "daemon";
  a->name = "ductiled";
}

/* The name of user id into out ("" when there is no such user). */
static dt_status user_name(long long id, char *out, size_t cap, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int row;
  out[0] = '\0';
  DT_TRY(dt_stmt("SELECT name FROM users WHERE id = ?1", &st, ctx));
  dt_bind_int64(st, 1, id);
  DT_TRY(dt_stmt_row(st, "find the audited user", &row, ctx));
  if (row) snprintf(out, cap, "%s", dt_col_text(st, 0));
cleanup:
  dt_stmt_done(&st);
  return rc;
}

/* The record's line in the daemon's log (after its commit, dt_store_on_commit). */
static void log_record(void *arg) {
  json_t *o = arg;
#define F(k) (json_string_value(json_object_get(o, k)))
  const char *kv[] = {"action",    F("action"),    "via",     F("via"),     "actor", F("actor"),
                      "unix_user", F("unix_user"), "target",  F("target"),  "owner", F("owner"),
                      "token",     F("token_id"),  "address", F("address"), NULL};
  const char *req = F("request_id");
#undef F
  /* Absent values end the list early: move the present pairs to the front. */
  int n = 0;
  for (int i = 0; kv[i]; i += 2)
    if (kv[i + 1]) kv[n++] = kv[i], kv[n++] = kv[i + 1];
  kv[n] = NULL;
  dt_log(DT_LOG_INFO, req, kv, "audit");
}

static void release_record(void *arg) { json_decref(arg); }

static json_t *opt_string(const char *s) { return s && s[0] ? json_string(s) : json_null(); }

/* s as UTF-8 into out (cap bytes): each byte that is not part of a UTF-8 character becomes '?'.
 * A target may be a file name of any bytes (a backup's), and the record is read as JSON. */
static const char *utf8_clean(const char *s, char *out, size_t cap) {
  size_t n, i = 0;
  if (!s) return NULL;
  snprintf(out, cap, "%s", s);
  n = strlen(out);
  while ((i += dt_utf8_invalid_at(out + i, n - i)) < n) out[i++] = '?';
  return out;
}

dt_status dt_audit(const dt_actor *who, const char *action, const char *target, long long owner_id,
                   json_t *details, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  char actor[128], owner[128], now[40], tbuf[1024], ubuf[128];
  char *text = NULL;
  json_t *rec = NULL;
  target = utf8_clean(target, tbuf, sizeof tbuf);
  utf8_clean(who->name ? who->name : "", actor, sizeof actor); /* SUDO_USER: any bytes */
  if (!who->name) DT_TRY(user_name(who->user_id, actor, sizeof actor, ctx));
  owner[0] = '\0';
  if (owner_id) DT_TRY(user_name(owner_id, owner, sizeof owner, ctx));
  if (details) {
    text = json_dumps(details, JSON_COMPACT | JSON_ENSURE_ASCII);
    DT_CHECK(text != NULL, ctx, DT_ERR_NOMEM, "out of memory recording %s", action);
  }
  dt_now_iso(now, sizeof now);
  DT_TRY(dt_stmt("INSERT INTO audit (ts, via, actor, token_id, request_id, address, action, "
                 "target, owner, details, unix_user) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                 "?10, ?11)",
                 &st, ctx));
  dt_bind_text(st, 1, now);
  dt_bind_text(st, 2, who->via);
  dt_bind_text(st, 3, actor);
  dt_bind_text(st, 4, who->token_id);
  dt_bind_text(st, 5, who->request_id);
  dt_bind_text(st, 6, who->address);
  dt_bind_text(st, 7, action);
  dt_bind_text(st, 8, target);
  dt_bind_text(st, 9, owner[0] ? owner : NULL);
  dt_bind_text(st, 10, text);
  dt_bind_text(st, 11, utf8_clean(who->unix_user, ubuf, sizeof ubuf));
  DT_TRY(dt_stmt_run(&st, "record the audit log", NULL, ctx));
  rec = json_pack("{s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "action", action, "via",
                  who->via, "actor", actor, "unix_user", opt_string(who->unix_user ? ubuf : NULL),
                  "target", opt_string(target), "owner", opt_string(owner), "token_id",
                  opt_string(who->token_id), "request_id", opt_string(who->request_id), "address",
                  opt_string(who->address));
  /* The log line is a convenience beside the row: without memory for it, the row stays. */
  if (rec) dt_store_on_commit(log_record, rec, release_record);
cleanup:
  dt_stmt_done(&st);
  free(text);
  return rc;
}

static json_t *opt_text(dt_sql *st, int i) {
  return dt_col_null(st, i) ? json_null() : json_string(dt_col_text(st, i));
}

/* One row of dt_audit_list's query as its API object. */
static json_t *record_json(dt_sql *st) {
  json_t *details = NULL;
  if (!dt_col_null(st, 10)) details = json_loads(dt_col_text(st, 10), 0, NULL);
  return json_pack("{s:I, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:o}", "seq",
                   (json_int_t)dt_col_int64(st, 0), "time", dt_col_text(st, 1), "via",
                   dt_col_text(st, 2), "actor", dt_col_text(st, 3), "unix_user", opt_text(st, 11),
                   "token_id", opt_text(st, 4), "request_id", opt_text(st, 5), "address",
                   opt_text(st, 6), "action", dt_col_text(st, 7), "target", opt_text(st, 8),
                   "owner", opt_text(st, 9), "details", details ? details : json_null());
}

dt_status dt_audit_list(const dt_audit_filter *f, json_t **items, long long *next, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  DT_TRY(
      dt_stmt("SELECT seq, ts, via, actor, token_id, request_id, address, action, target, "
              "owner, details, unix_user FROM audit WHERE (?1 = 0 OR seq < ?1) AND (?2 IS NULL OR "
              "action = ?2) AND (?3 IS NULL OR actor = ?3) AND (?4 IS NULL OR target = ?4) "
              "ORDER BY seq DESC LIMIT ?5",
              &st, ctx));
  dt_bind_int64(st, 1, f->before);
  dt_bind_text(st, 2, f->action);
  dt_bind_text(st, 3, f->actor);
  dt_bind_text(st, 4, f->target);
  dt_bind_int64(st, 5, f->limit + 1);
  DT_TRY(dt_stmt_page(st, f->limit, 0, record_json, "list the audit log", items, next, ctx));
cleanup:
  dt_stmt_done(&st);
  return rc;
}
