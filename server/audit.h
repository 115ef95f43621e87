/* The audit log: who did what, and when (schema/migrations/005_audit.sql).
 *
 * Recorded, when they take effect: job.submit, job.cancel, job.delete (the API); user.add,
 * user.disable, user.enable, user.share, token.create, token.revoke, store.backup (the command line; the
 * first start's admin user and token by the daemon). Each record is a row of the audit table,
 * written in the transaction of the change it records, so a change is never without its record
 * nor a record without its change; and, once that transaction commits, an INFO line of the
 * daemon's log (msg=audit), for a log collector. A refused request changes nothing and records
 * nothing here: the daemon's request log has it.
 *
 * Admins read the table with GET /v1/audit, operators with `ductiled admin audit`.
 *
 * To record a new action: a name <resource>.<verb>, a dt_audit call in the transaction of the
 * change (the store function that makes it takes the dt_actor), the name in the migration's
 * comment, docs/api.md and schema/openapi.yaml's AuditRecord. */
#ifndef DT_SRV_AUDIT_H
#define DT_SRV_AUDIT_H

#include <stddef.h>

#include <jansson.h>

#include "status.h"

/* Who acts. Strings are borrowed for the call. */
typedef struct dt_actor {
  const char *via;        /* "api", "cli" or "daemon" */
  const char *name;       /* cli: sudo's caller (SUDO_USER), else the Unix user; daemon:
                             "ductiled"; api: NULL (the user's name is looked up by user_id) */
  const char *unix_user;  /* cli: the Unix user the command runs as; NULL otherwise */
  long long user_id;      /* api: the token's user; 0 otherwise */
  const char *token_id;   /* api: the request's token; NULL otherwise */
  const char *request_id; /* api: X-Request-Id; NULL otherwise */
  const char *address;    /* api: the client's address; NULL otherwise */
} dt_actor;

/* The command line's actor. Commands run as the daemon's user (sudo -u ductile ductiled ...),
 * so that the files SQLite creates beside the database stay the daemon's; the person is then
 * sudo's caller, SUDO_USER, which becomes the actor, and the Unix user the command runs as
 * (getpwuid of the effective uid; "uid N" when it has no name) is kept beside it. Without sudo
 * both are that Unix user. SUDO_USER is the environment's word: whoever can run the command can
 * set it, which unix_user shows. name and unix_name receive them (cap bytes each). */
void dt_actor_cli(dt_actor *a, char *name, char *unix_name, size_t cap);
/* The daemon's own actor ("ductiled"), for what it does by itself (the first start). */
void dt_actor_daemon(dt_actor *a);

/* Record action by who on target (NULL: none), whose owner is the user owner_id (0: none), with
 * details (borrowed; NULL: none), in the calling thread's open transaction, or on its own when
 * none is open. DT_ERR_DB (DT_ERR_IO on a full disk): the caller's change fails with it. */
dt_status dt_audit(const dt_actor *who, const char *action, const char *target, long long owner_id,
                   json_t *details, dt_ctx *ctx);

typedef struct dt_audit_filter {
  const char *action; /* NULL: any */
  const char *actor;  /* NULL: any */
  const char *target; /* NULL: any */
  long long before;   /* cursor: seq below this (0: newest) */
  int limit;
} dt_audit_filter;
/* The records, newest first: array of {seq, time, via, actor, unix_user, token_id, request_id,
 * address, action, target, owner, details}; *next the cursor of the next page (0: none). */
dt_status dt_audit_list(const dt_audit_filter *f, json_t **items, long long *next, dt_ctx *ctx);

#endif
