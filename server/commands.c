/* The commands of ductiled's command line besides serving (see commands.h). Each works on the
 * data directory's database directly, also while the daemon runs, prints what it made on stdout
 * and what it did or why it failed on stderr, and returns the process's exit status. */
#include "commands.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "auth.h"
#include "store.h"

/* The actor of the command line's changes (audit.h): sudo's caller or the Unix user. */
typedef struct cli_actor {
  dt_actor a;
  char name[128], unix_name[128];
} cli_actor;

static const dt_actor *cli_actor_of(cli_actor *c) {
  dt_actor_cli(&c->a, c->name, c->unix_name, sizeof c->name);
  return &c->a;
}

/* token create [--name NAME] [--user USER]: the token is printed once, on stdout. */
static int token_create(int argc, char **argv) {
  const char *name = "cli", *user = "admin";
  char token[DT_TOKEN_LEN + 1], id[17];
  long long uid = 0;
  int disabled = 0;
  dt_status rc = DT_OK;
  dt_ctx ctx;
  cli_actor who;
  memset(&ctx, 0, sizeof ctx);
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) return DT_EXIT_USAGE;
    if (!strcmp(argv[i], "--name"))
      name = argv[i + 1];
    else if (!strcmp(argv[i], "--user"))
      user = argv[i + 1];
    else
      return DT_EXIT_USAGE;
  }
  DT_TRY(dt_auth_user_ensure(user, cli_actor_of(&who), &uid, &disabled, &ctx));
  /* A token of a disabled user would never authenticate: say so rather than print it. */
  DT_CHECK(!disabled, &ctx, DT_ERR_INPUT, "user %s is disabled (ductiled admin user enable %s)",
           user, user);
  DT_TRY(dt_auth_token_create(uid, name, &who.a, token, id, &ctx));
  printf("%s\n", token);
  fprintf(stderr, "created token %s (\"%s\") for user %s; it is shown only now\n", id, name, user);
cleanup:
  if (rc != DT_OK) fprintf(stderr, "ductiled: cannot create a token: %s\n", ctx.msg);
  return rc == DT_OK ? 0 : 1;
}

/* Print what list() returns as indented JSON: `ductiled token list`, `admin user list`. */
static int print_list(dt_status (*list)(json_t **out, dt_ctx *ctx), const char *what) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  json_t *items = NULL;
  char *text = NULL;
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(list(&items, &ctx));
  text = json_dumps(items, JSON_INDENT(2));
  DT_CHECK(text != NULL, &ctx, DT_ERR_NOMEM, "out of memory");
  printf("%s\n", text);
cleanup:
  if (rc != DT_OK) fprintf(stderr, "ductiled: cannot list the %s: %s\n", what, ctx.msg);
  json_decref(items);
  free(text);
  return rc == DT_OK ? 0 : 1;
}

static int token_list(void) { return print_list(dt_auth_token_list, "tokens"); }

static int token_revoke(const char *id) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  dt_outcome outcome = DT_NOT_FOUND;
  cli_actor who;
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(dt_auth_token_revoke(id, cli_actor_of(&who), &outcome, &ctx));
  if (outcome == DT_DONE)
    fprintf(stderr, "revoked token %s\n", id);
  else
    fprintf(stderr, "ductiled: no active token with this id\n");
cleanup:
  if (rc != DT_OK) fprintf(stderr, "ductiled: cannot revoke: %s\n", ctx.msg);
  return rc == DT_OK && outcome == DT_DONE ? 0 : 1;
}

int dt_cmd_token(int argc, char **argv) {
  const char *sub = argc > 0 ? argv[0] : "";
  if (!strcmp(sub, "create")) return token_create(argc, argv);
  if (!strcmp(sub, "list") && argc == 1) return token_list();
  if (!strcmp(sub, "revoke") && argc == 2) return token_revoke(argv[1]);
  return DT_EXIT_USAGE;
}

/* admin user add NAME [--admin] (--admin may also come first): role user, or admin. */
static int user_add(int argc, char **argv) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  dt_outcome outcome = DT_REFUSED;
  const char *name = NULL;
  int admin = 0;
  cli_actor who;
  memset(&ctx, 0, sizeof ctx);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--admin") && !admin)
      admin = 1;
    else if (argv[i][0] != '-' && !name)
      name = argv[i];
    else
      return DT_EXIT_USAGE;
  }
  if (!name) return DT_EXIT_USAGE;
  DT_TRY(dt_auth_user_add(name, admin, cli_actor_of(&who), &outcome, &ctx));
  if (outcome == DT_DONE)
    fprintf(stderr,
            "created user %s (role %s); give it a token with: ductiled token create --user %s\n",
            name, admin ? "admin" : "user", name);
  else
    fprintf(stderr, "ductiled: a user named %s exists already\n", name);
cleanup:
  if (rc != DT_OK) fprintf(stderr, "ductiled: cannot create the user: %s\n", ctx.msg);
  return rc == DT_OK && outcome == DT_DONE ? 0 : 1;
}

static int user_list(void) { return print_list(dt_auth_user_list, "users"); }

/* admin user disable|enable NAME: a running daemon applies it to the user's next request and
 * ends its open event streams within a second (sse.c). */
static int user_disable(const char *name, int disable) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  dt_outcome outcome = DT_NOT_FOUND;
  cli_actor who;
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(dt_auth_user_disable(name, disable, cli_actor_of(&who), &outcome, &ctx));
  if (outcome == DT_DONE)
    fprintf(stderr, "%s user %s\n", disable ? "disabled" : "enabled", name);
  else if (outcome == DT_REFUSED)
    fprintf(stderr, "ductiled: user %s is %s already\n", name, disable ? "disabled" : "enabled");
  else
    fprintf(stderr, "ductiled: no user named %s\n", name);
cleanup:
  if (rc != DT_OK)
    fprintf(stderr, "ductiled: cannot %s the user: %s\n", disable ? "disable" : "enable", ctx.msg);
  return rc == DT_OK && outcome == DT_DONE ? 0 : 1;
}

/* admin user share NAME WEIGHT: the user's fair-share weight (auth.h), from the next job a
 * worker takes. */
static int user_share(const char *name, const char *weight) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  dt_outcome outcome = DT_NOT_FOUND;
  cli_actor who;
  char *end = NULL;
  double w;
  memset(&ctx, 0, sizeof ctx);
  errno = 0;
  w = strtod(weight, &end);
  DT_CHECK(end != weight && *end == '\0' && errno == 0, &ctx, DT_ERR_INPUT,
           "share: expected a number above 0 and at most %g (got \"%s\")", DT_SHARE_MAX, weight);
  DT_TRY(dt_auth_user_share(name, w, cli_actor_of(&who), &outcome, &ctx));
  if (outcome == DT_DONE)
    fprintf(stderr, "user %s: share %g\n", name, w);
  else
    fprintf(stderr, "ductiled: no user named %s\n", name);
cleanup:
  if (rc != DT_OK) fprintf(stderr, "ductiled: cannot set the share: %s\n", ctx.msg);
  return rc == DT_OK && outcome == DT_DONE ? 0 : 1;
}

/* admin backup FILE: an online copy of the database (store.h), beside a running daemon;
 * audited as store.backup once it is complete (the copy does not hold its own record). */
static int backup(const char *file) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  dt_backup_info info;
  cli_actor who;
  char full[PATH_MAX];
  json_t *details = NULL;
  int made = 0;
  memset(&ctx, 0, sizeof ctx);
  DT_TRY(dt_store_backup(file, &info, &ctx));
  made = 1;
  fprintf(stderr,
          "backed up the database to %s (%s, %lld bytes, schema version %d, %s); the files of "
          "meshes and jobs are not in it (docs/operations.md)\n",
          file, dt_store_kind(), info.bytes, info.schema_version,
          strcmp(dt_store_kind(), "sqlite") ? "pg_restore reads it" : "quick_check ok");
  details = json_pack("{s:I, s:i}", "bytes", (json_int_t)info.bytes, "schema_version",
                      info.schema_version);
  DT_TRY(dt_audit(cli_actor_of(&who), "store.backup", realpath(file, full) ? full : file, 0,
                  details, &ctx));
cleanup:
  if (rc != DT_OK && made)
    fprintf(stderr, "ductiled: the backup is complete, but the audit log cannot record it: %s\n",
            ctx.msg);
  else if (rc != DT_OK)
    fprintf(stderr, "ductiled: cannot back up the database: %s\n", ctx.msg);
  json_decref(details);
  return rc == DT_OK ? 0 : 1;
}

/* admin audit [--limit N] [--action A] [--actor NAME] [--target T]: the audit log's records,
 * newest first, as indented JSON (the objects of GET /v1/audit). */
static int audit_list(int argc, char **argv) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  dt_audit_filter f;
  json_t *items = NULL;
  char *text = NULL, *end = NULL;
  long long next = 0;
  memset(&ctx, 0, sizeof ctx);
  memset(&f, 0, sizeof f);
  f.limit = 100;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) return DT_EXIT_USAGE;
    if (!strcmp(argv[i], "--limit")) {
      long n = strtol(argv[i + 1], &end, 10);
      if (*end || n < 1 || n > 1000000) return DT_EXIT_USAGE;
      f.limit = (int)n;
    } else if (!strcmp(argv[i], "--action")) {
      f.action = argv[i + 1];
    } else if (!strcmp(argv[i], "--actor")) {
      f.actor = argv[i + 1];
    } else if (!strcmp(argv[i], "--target")) {
      f.target = argv[i + 1];
    } else {
      return DT_EXIT_USAGE;
    }
  }
  DT_TRY(dt_audit_list(&f, &items, &next, &ctx));
  text = json_dumps(items, JSON_INDENT(2));
  DT_CHECK(text != NULL, &ctx, DT_ERR_NOMEM, "out of memory");
  printf("%s\n", text);
  if (next) fprintf(stderr, "(the newest %d records; --limit shows more)\n", f.limit);
cleanup:
  if (rc != DT_OK) fprintf(stderr, "ductiled: cannot read the audit log: %s\n", ctx.msg);
  json_decref(items);
  free(text);
  return rc == DT_OK ? 0 : 1;
}

int dt_cmd_admin(int argc, char **argv) {
  const char *sub = argc > 1 ? argv[1] : "";
  if (argc == 2 && !strcmp(argv[0], "backup")) return backup(argv[1]);
  if (argc >= 1 && !strcmp(argv[0], "audit")) return audit_list(argc, argv);
  if (argc < 1 || strcmp(argv[0], "user")) return DT_EXIT_USAGE;
  if (!strcmp(sub, "add")) return user_add(argc - 1, argv + 1);
  if (!strcmp(sub, "list") && argc == 2) return user_list();
  if (!strcmp(sub, "disable") && argc == 3) return user_disable(argv[2], 1);
  if (!strcmp(sub, "enable") && argc == 3) return user_disable(argv[2], 0);
  if (!strcmp(sub, "share") && argc == 4) return user_share(argv[2], argv[3]);
  return DT_EXIT_USAGE;
}

int dt_cmd_migrate(int argc) {
  dt_status rc = DT_OK;
  dt_ctx ctx;
  int version = 0;
  memset(&ctx, 0, sizeof ctx);
  if (argc != 0) return DT_EXIT_USAGE;
  DT_TRY(dt_store_schema_version(&version, &ctx));
  printf("%s schema version %d\n", dt_store_kind(), version);
cleanup:
  if (rc != DT_OK) fprintf(stderr, "ductiled: cannot read the schema version: %s\n", ctx.msg);
  dt_store_thread_close();
  return rc == DT_OK ? 0 : 1;
}
