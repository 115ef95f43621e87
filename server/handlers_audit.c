/* GET /v1/audit: the audit log (audit.h), newest first, filtered by action, actor or target,
 * in pages. Admins only: the log names every user and what they did, which a user must not
 * read (isolation); a user's token gets 403 forbidden, whatever the query. */
#include <string.h>

#include "audit.h"
#include "handlers.h"

/* ?name= into *out: absent (NULL), or 1 to 1000 bytes; 400 invalid_parameter otherwise. */
static dt_status filter_or_reply(dt_req *r, const char *name, const char **out) {
  *out = dt_req_query(r, name);
  if (!*out || (**out && strlen(*out) <= 1000)) return DT_OK;
  dt_reply_invalid_parameter(r, name, "%s: expected 1 to 1000 characters", name);
  return DT_ERR_INPUT;
}

void dt_h_audit_list(dt_req *r) {
  static const char *const allowed[] = {"action", "actor", "target", "limit", "cursor", NULL};
  dt_status rc = DT_OK;
  dt_ctx ctx;
  dt_audit_filter f;
  json_t *items = NULL;
  long long next = 0;
  memset(&ctx, 0, sizeof ctx);
  memset(&f, 0, sizeof f);
  if (strcmp(r->who.role, "admin")) {
    dt_reply_error(r, 403, "forbidden", NULL,
                   "the audit log is for admins: this token's user has the role %s", r->who.role);
    goto cleanup;
  }
  DT_TRY(dt_req_query_allowed_or_reply(r, allowed));
  DT_TRY(dt_page_or_reply(r, &f.limit, &f.before));
  DT_TRY(filter_or_reply(r, "action", &f.action));
  DT_TRY(filter_or_reply(r, "actor", &f.actor));
  DT_TRY(filter_or_reply(r, "target", &f.target));
  DT_TRY(dt_audit_list(&f, &items, &next, &ctx));
  dt_reply_json(r, 200, dt_page(items, next));
cleanup:
  dt_reply_status(r, rc, &ctx, NULL, NULL);
}
