/* Checkpoint files (checkpoint.h). Layout: a fixed header (magic, format version, a layout
 * signature of this build's structs, model hash, sizes), the counters, the vectors, the point
 * state, then the output writer's record. Raw native doubles: checkpoints are for restarting
 * on the same machine, not for exchange. */
#include "checkpoint.h"

#include <errno.h>
#include <string.h>

#include "backend/backend.h"
#include "io/output.h"
#include "io/output_internal.h"

#define CK_MAGIC "DUCTCKP1"

typedef struct ck_header {
  char magic[8];
  uint32_t layout; /* sizeof of the raw structs in the file, combined */
  uint32_t pad;
  uint64_t model_hash;
  int32_t n_dofs, n_qp, step, increment;
  double lambda, dlambda, dlambda_prev;
} ck_header;

static uint32_t layout_signature(void) {
  return (uint32_t)(sizeof(ck_header) * 131 + sizeof(dt_run_summary) * 17 +
                    sizeof(dt_history_row) * 7 + DT_QP_STATE_DOUBLES * 3 + DT_CK_NVEC +
                    DT_OUTPUT_STATE_LAYOUT * 1009);
}

/* FNV-1a over the bytes that define the problem. */
static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

uint64_t dt_model_hash(const dt_model *m) {
  uint64_t h = 1469598103934665603ull;
  h = fnv(h, &m->n_nodes, sizeof m->n_nodes);
  h = fnv(h, &m->n_elems, sizeof m->n_elems);
  h = fnv(h, m->x, sizeof(double) * 3 * (size_t)m->n_nodes);
  h = fnv(h, m->conn, sizeof(int) * (size_t)m->elem_ptr[m->n_elems]);
  h = fnv(h, m->elem_type, (size_t)m->n_elems);
  for (int i = 0; i < m->n_materials; i++) h = fnv(h, &m->materials[i].p, sizeof m->materials[i].p);
  h = fnv(h, &m->n_steps, sizeof m->n_steps);
  for (int s = 0; s < m->n_steps; s++) {
    const dt_step *st = &m->steps[s];
    h = fnv(h, &st->n_bc, sizeof st->n_bc);
    h = fnv(h, st->bc, sizeof *st->bc * (size_t)st->n_bc);
    h = fnv(h, st->cload, sizeof *st->cload * (size_t)st->n_cload);
    h = fnv(h, st->pressure, sizeof *st->pressure * (size_t)st->n_pressure);
    h = fnv(h, st->traction, sizeof *st->traction * (size_t)st->n_traction);
    h = fnv(h, st->body, sizeof *st->body * (size_t)st->n_body);
    if (st->n_material_changes > 0) /* only where present: other models keep their hash */
      h = fnv(h, st->material_changes,
              sizeof *st->material_changes * (size_t)st->n_material_changes);
  }
  if (m->eq.n > 0) { /* hashed only where present: the hash of a model without stays the same */
    size_t terms = (size_t)m->eq.ptr[m->eq.n];
    h = fnv(h, m->eq.ptr, sizeof(int) * ((size_t)m->eq.n + 1));
    h = fnv(h, m->eq.node, sizeof(int) * terms);
    h = fnv(h, m->eq.dof, terms);
    h = fnv(h, m->eq.coef, sizeof(double) * terms);
  }
  return h;
}

dt_status dt_checkpoint_alloc(dt_checkpoint *ck, int n_dofs, int n_qp, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  ck->n_dofs = n_dofs;
  ck->n_qp = n_qp;
  DT_ALLOC(ck->vec, (size_t)DT_CK_NVEC * n_dofs, ctx, "checkpoint vectors");
  DT_ALLOC(ck->qp, (size_t)DT_QP_STATE_DOUBLES * n_qp, ctx, "checkpoint point state");
cleanup:
  return rc;
}

void dt_checkpoint_free(dt_checkpoint *ck) {
  DT_FREE(ck->vec);
  DT_FREE(ck->qp);
}

static int write_all(FILE *f, const void *p, size_t size, size_t n) {
  return n == 0 || fwrite(p, size, n, f) == n;
}

dt_status dt_checkpoint_write(const char *path, const dt_checkpoint *ck,
                              dt_status (*save_output)(void *arg, FILE *f, dt_ctx *ctx), void *arg,
                              dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char tmp[4096];
  FILE *f = NULL;
  ck_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, CK_MAGIC, 8);
  h.layout = layout_signature();
  h.model_hash = ck->model_hash;
  h.n_dofs = ck->n_dofs, h.n_qp = ck->n_qp, h.step = ck->step, h.increment = ck->increment;
  h.lambda = ck->lambda, h.dlambda = ck->dlambda, h.dlambda_prev = ck->dlambda_prev;
  DT_CHECK(snprintf(tmp, sizeof tmp, "%s.tmp", path) < (int)sizeof tmp, ctx, DT_ERR_IO,
           "checkpoint path too long");
  f = fopen(tmp, "wb");
  DT_CHECK(f != NULL, ctx, DT_ERR_IO, "cannot create checkpoint '%s': %s", tmp, strerror(errno));
  DT_CHECK(write_all(f, &h, sizeof h, 1) && write_all(f, &ck->counters, sizeof ck->counters, 1) &&
               write_all(f, ck->vec, sizeof(double), (size_t)DT_CK_NVEC * ck->n_dofs) &&
               write_all(f, ck->qp, sizeof(double), (size_t)DT_QP_STATE_DOUBLES * ck->n_qp),
           ctx, DT_ERR_IO, "cannot write checkpoint '%s': %s", tmp, strerror(errno));
  if (save_output) DT_TRY(save_output(arg, f, ctx));
  rc = dt_output_commit_durable(f, tmp, path, ctx); /* closes f */
  f = NULL;
cleanup:
  if (f) {
    fclose(f);
    remove(tmp);
  }
  return rc;
}

dt_status dt_checkpoint_read(const char *path, uint64_t model_hash, dt_checkpoint *ck, FILE **f_out,
                             dt_ctx *ctx) {
  dt_status rc = DT_OK;
  FILE *f = fopen(path, "rb");
  ck_header h;
  *f_out = NULL;
  DT_CHECK(f != NULL, ctx, DT_ERR_IO, "cannot open checkpoint '%s': %s", path, strerror(errno));
  DT_CHECK(fread(&h, sizeof h, 1, f) == 1 && memcmp(h.magic, CK_MAGIC, 8) == 0, ctx, DT_ERR_INPUT,
           "'%s' is not a ductile checkpoint", path);
  DT_CHECK(h.layout == layout_signature(), ctx, DT_ERR_INPUT,
           "checkpoint '%s' was written by another build of ductile", path);
  DT_CHECK(h.model_hash == model_hash, ctx, DT_ERR_INPUT,
           "checkpoint '%s' belongs to another model (mesh, materials or steps differ)", path);
  DT_TRY(dt_checkpoint_alloc(ck, h.n_dofs, h.n_qp, ctx));
  ck->model_hash = h.model_hash;
  ck->step = h.step, ck->increment = h.increment, ck->lambda = h.lambda, ck->dlambda = h.dlambda;
  ck->dlambda_prev = h.dlambda_prev;
  DT_CHECK(fread(&ck->counters, sizeof ck->counters, 1, f) == 1 &&
               fread(ck->vec, sizeof(double), (size_t)DT_CK_NVEC * ck->n_dofs, f) ==
                   (size_t)DT_CK_NVEC * ck->n_dofs &&
               fread(ck->qp, sizeof(double), (size_t)DT_QP_STATE_DOUBLES * ck->n_qp, f) ==
                   (size_t)DT_QP_STATE_DOUBLES * ck->n_qp,
           ctx, DT_ERR_IO, "checkpoint '%s' is truncated", path);
  *f_out = f;
  f = NULL;
cleanup:
  if (f) fclose(f);
  if (rc != DT_OK) dt_checkpoint_free(ck);
  return rc;
}
