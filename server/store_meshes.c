/* Mesh rows (see store_meshes.h). */
#include "store_meshes.h"

#include <stdio.h>
#include <string.h>

#include "log.h"
#include "store.h"

#define MESH_COLS                                                                                  \
  "id, name, bytes, sha256, dim, n_nodes, n_elements, created_at, path, seq, "                     \
  "(SELECT name FROM users WHERE users.id = meshes.owner_id), ho_order"

static json_t *mesh_json(dt_sql *st) {
  const char *id = dt_col_text(st, 0);
  json_t *o = json_pack("{s:s, s:I, s:s, s:i, s:i, s:i, s:s}", "id", id, "bytes",
                        (json_int_t)dt_col_int64(st, 2), "sha256", dt_col_text(st, 3), "dim",
                        dt_col_int(st, 4), "n_nodes", dt_col_int(st, 5), "n_elements",
                        dt_col_int(st, 6), "created_at", dt_col_text(st, 7));
  {
    const char *path = dt_col_text(st, 8);
    size_t n = path ? strlen(path) : 0;
    json_object_set_new(o, "format",
                        json_string(n > 4 && !strcmp(path + n - 4, ".msh") ? "msh" : "json"));
  }
  json_object_set_new(o, "name",
                      dt_col_null(st, 1) ? json_null() : json_string(dt_col_text(st, 1)));
  json_object_set_new(o, "owner", json_string(dt_col_text(st, 10)));
  if (dt_col_int(st, 11) > 0) json_object_set_new(o, "order", json_integer(dt_col_int(st, 11)));
  return o;
}

dt_status dt_mesh_insert(const dt_mesh_row *m, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char now[40];
  dt_sql *st = NULL;
  DT_TRY(dt_stmt(
      "INSERT INTO meshes (id, owner_id, name, path, bytes, sha256, dim, n_nodes, n_elements, "
      "created_at, ho_order) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
      &st, ctx));
  dt_now_iso(now, sizeof now);
  dt_bind_text(st, 1, m->id);
  dt_bind_int64(st, 2, m->owner_id);
  dt_bind_text(st, 3, m->name[0] ? m->name : NULL);
  dt_bind_text(st, 4, m->path);
  dt_bind_int64(st, 5, m->bytes);
  dt_bind_text(st, 6, m->sha256);
  dt_bind_int64(st, 7, m->dim);
  dt_bind_int64(st, 8, m->n_nodes);
  dt_bind_int64(st, 9, m->n_elements);
  dt_bind_text(st, 10, now);
  dt_bind_int64(st, 11, m->order);
  DT_TRY(dt_stmt_run(&st, "insert mesh", NULL, ctx));
cleanup:
  dt_stmt_done(&st);
  return rc;
}

dt_status dt_mesh_get(const char *id, long long owner, json_t **out, char *path, size_t pathlen,
                      dt_outcome *outcome, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int row;
  *out = NULL;
  *outcome = DT_NOT_FOUND;
  DT_TRY(dt_stmt("SELECT " MESH_COLS " FROM meshes WHERE id = ?1 AND (?2 = 0 OR owner_id = ?2)",
                 &st, ctx));
  dt_bind_text(st, 1, id);
  dt_bind_int64(st, 2, owner);
  DT_TRY(dt_stmt_row(st, "get mesh", &row, ctx));
  if (!row) goto cleanup;
  *out = mesh_json(st);
  DT_CHECK(*out != NULL, ctx, DT_ERR_NOMEM, "out of memory describing mesh %s", id);
  if (path) snprintf(path, pathlen, "%s", dt_col_text(st, 8));
  *outcome = DT_DONE;
cleanup:
  dt_stmt_done(&st);
  return rc;
}

dt_status dt_mesh_list(long long owner, long long before, int limit, json_t **items,
                       long long *next, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  /* A user's page is a range of the index meshes_owner (owner_id, seq); an admin's walks seq. */
  if (owner != DT_ANY_OWNER)
    DT_TRY(dt_stmt("SELECT " MESH_COLS " FROM meshes WHERE owner_id = ?3 AND (?1 = 0 OR seq < ?1) "
                   "ORDER BY seq DESC LIMIT ?2",
                   &st, ctx));
  else
    DT_TRY(dt_stmt("SELECT " MESH_COLS
                   " FROM meshes WHERE ?1 = 0 OR seq < ?1 ORDER BY seq DESC LIMIT ?2",
                   &st, ctx));
  dt_bind_int64(st, 1, before);
  dt_bind_int64(st, 2, limit + 1);
  if (owner != DT_ANY_OWNER) dt_bind_int64(st, 3, owner);
  DT_TRY(dt_stmt_page(st, limit, 9, mesh_json, "list meshes", items, next, ctx));
cleanup:
  dt_stmt_done(&st);
  return rc;
}

dt_status dt_mesh_delete(const char *id, long long owner, char *path, size_t pathlen,
                         int *jobs_using, dt_outcome *outcome, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_sql *st = NULL;
  int row;
  *jobs_using = 0;
  *outcome = DT_NOT_FOUND;
  DT_TRY(dt_store_begin(ctx));
  /* PostgreSQL: the submissions' turn (store_jobs.c), so that no job takes the mesh between the
   * count of its jobs and its deletion. */
  DT_TRY(dt_stmt("SELECT 1 /*pg: , pg_advisory_xact_lock(7303042) */", &st, ctx));
  DT_TRY(dt_stmt_row(st, "wait for the submissions' turn", &row, ctx));
  dt_stmt_done(&st);
  DT_TRY(dt_stmt("SELECT path, (SELECT COUNT(*) FROM jobs WHERE mesh_id = ?1 AND state IN "
                 "('queued', 'running')) "
                 "FROM meshes WHERE id = ?1 AND (?2 = 0 OR owner_id = ?2)",
                 &st, ctx));
  dt_bind_text(st, 1, id);
  dt_bind_int64(st, 2, owner);
  DT_TRY(dt_stmt_row(st, "find mesh", &row, ctx));
  if (!row) goto cleanup;
  snprintf(path, pathlen, "%s", dt_col_text(st, 0));
  *jobs_using = dt_col_int(st, 1);
  *outcome = *jobs_using ? DT_REFUSED : DT_DONE;
  dt_stmt_done(&st);
  if (*outcome != DT_DONE) goto cleanup;
  DT_TRY(dt_stmt("DELETE FROM meshes WHERE id = ?1", &st, ctx));
  dt_bind_text(st, 1, id);
  DT_TRY(dt_stmt_run(&st, "delete mesh", NULL, ctx));
  DT_TRY(dt_store_commit(ctx));
cleanup:
  dt_stmt_done(&st);
  dt_store_rollback();
  return rc;
}
