/* Mesh rows (see store_meshes.h). */
#include "store_meshes.h"

#include <stdio.h>
#include <string.h>

#include "log.h"
#include "store.h"

#define MESH_COLS "id, name, bytes, sha256, dim, n_nodes, n_elements, created_at, path, seq"

static json_t *mesh_json(sqlite3_stmt *st) {
  const char *id = dt_col_text(st, 0);
  json_t *o = json_pack("{s:s, s:I, s:s, s:i, s:i, s:i, s:s}", "id", id, "bytes",
                        (json_int_t)sqlite3_column_int64(st, 2), "sha256", dt_col_text(st, 3), "dim",
                        sqlite3_column_int(st, 4), "n_nodes", sqlite3_column_int(st, 5), "n_elements",
                        sqlite3_column_int(st, 6), "created_at", dt_col_text(st, 7));
  {
    const char *path = dt_col_text(st, 8);
    size_t n = path ? strlen(path) : 0;
    json_object_set_new(o, "format", json_string(n > 4 && !strcmp(path + n - 4, ".msh") ? "msh" : "json"));
  }
  json_object_set_new(o, "name", sqlite3_column_type(st, 1) == SQLITE_NULL ? json_null() : json_string(dt_col_text(st, 1)));
  return o;
}

int dt_mesh_insert(const dt_mesh_row *m) {
  char now[40];
  int rc;
  sqlite3_stmt *st = dt_stmt("INSERT INTO meshes (id, owner_id, name, path, bytes, sha256, dim, n_nodes, n_elements, "
                             "created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  if (!st) return DT_STORE_ERR;
  dt_now_iso(now, sizeof now);
  dt_bind_text(st, 1, m->id);
  sqlite3_bind_int64(st, 2, m->owner_id);
  dt_bind_text(st, 3, m->name[0] ? m->name : NULL);
  dt_bind_text(st, 4, m->path);
  sqlite3_bind_int64(st, 5, m->bytes);
  dt_bind_text(st, 6, m->sha256);
  sqlite3_bind_int(st, 7, m->dim);
  sqlite3_bind_int(st, 8, m->n_nodes);
  sqlite3_bind_int(st, 9, m->n_elements);
  dt_bind_text(st, 10, now);
  rc = dt_stmt_exec_done(st, "insert mesh");
  return rc;
}

int dt_mesh_get(const char *id, json_t **out, char *path, size_t pathlen) {
  int step, rc;
  sqlite3_stmt *st = dt_stmt("SELECT " MESH_COLS " FROM meshes WHERE id = ?1");
  *out = NULL;
  if (!st) return DT_STORE_ERR;
  dt_bind_text(st, 1, id);
  step = sqlite3_step(st);
  if (step == SQLITE_ROW) {
    *out = mesh_json(st);
    if (path) snprintf(path, pathlen, "%s", dt_col_text(st, 8));
    rc = *out ? DT_STORE_OK : DT_STORE_ERR;
  } else {
    rc = step == SQLITE_DONE ? DT_STORE_NOTFOUND : dt_store_fail("get mesh");
  }
  dt_stmt_done(st);
  return rc;
}

int dt_mesh_list(long long before, int limit, json_t **items, long long *next) {
  int step, n = 0;
  long long last = 0;
  sqlite3_stmt *st = dt_stmt("SELECT " MESH_COLS " FROM meshes WHERE ?1 = 0 OR seq < ?1 ORDER BY seq DESC LIMIT ?2");
  *items = json_array();
  *next = 0;
  if (!st || !*items) return DT_STORE_ERR;
  sqlite3_bind_int64(st, 1, before);
  sqlite3_bind_int(st, 2, limit + 1);
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    if (n == limit) {
      *next = last;
      break;
    }
    json_array_append_new(*items, mesh_json(st));
    last = sqlite3_column_int64(st, 9);
    n++;
  }
  dt_stmt_done(st);
  if (step != SQLITE_ROW && step != SQLITE_DONE) {
    json_decref(*items);
    *items = NULL;
    return dt_store_fail("list meshes");
  }
  return DT_STORE_OK;
}

int dt_mesh_delete(const char *id, char *path, size_t pathlen, int *jobs_using) {
  int rc = DT_STORE_NOTFOUND;
  sqlite3_stmt *st;
  *jobs_using = 0;
  if (dt_store_begin()) return DT_STORE_ERR;
  st = dt_stmt("SELECT path, (SELECT COUNT(*) FROM jobs WHERE mesh_id = ?1 AND state IN ('queued', 'running')) "
               "FROM meshes WHERE id = ?1");
  if (!st) goto fail;
  dt_bind_text(st, 1, id);
  if (sqlite3_step(st) == SQLITE_ROW) {
    snprintf(path, pathlen, "%s", dt_col_text(st, 0));
    *jobs_using = sqlite3_column_int(st, 1);
    rc = *jobs_using ? DT_STORE_CONFLICT : DT_STORE_OK;
  }
  dt_stmt_done(st);
  if (rc == DT_STORE_OK) {
    st = dt_stmt("DELETE FROM meshes WHERE id = ?1");
    if (!st) goto fail;
    dt_bind_text(st, 1, id);
    if (sqlite3_step(st) != SQLITE_DONE) {
      dt_stmt_done(st);
      goto fail;
    }
    dt_stmt_done(st);
  }
  if (dt_store_commit()) goto fail;
  return rc;
fail:
  dt_store_fail("delete mesh");
  dt_store_rollback();
  return DT_STORE_ERR;
}
