/* Saving and restoring the output writer's bookkeeping inside a checkpoint (checkpoint.c).
 * Record (DT_OUTPUT_STATE_LAYOUT 2): u32 n_rows, n_rows raw dt_history_row, u32 n_vtu, n_vtu
 * raw dt_pvd_entry, then the .frd's i64 end, i32 blocks, i32 sets. Raw structs are fine here:
 * a checkpoint is read back by the same build (checkpoint.c checks a layout signature, which
 * includes DT_OUTPUT_STATE_LAYOUT, before getting here). */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "io/output_internal.h"

dt_status dt_output_save_state(dt_output *o, FILE *f, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  uint32_t nr = (uint32_t)o->n_rows, nv = (uint32_t)o->n_vtu;
  int64_t end;
  int32_t counters[2];
  int ok;
  /* Every VTU the record lists must exist before the checkpoint that refers to it does, and
   * the .frd must hold the blocks it counts. */
  DT_TRY(dt_output_queue_drain(o, ctx));
  end = o->frd.end;
  counters[0] = o->frd.blocks;
  counters[1] = o->frd.sets;
  /* (fwrite with a NULL pointer is undefined even for zero items, hence the n == 0 tests) */
  ok = fwrite(&nr, sizeof nr, 1, f) == 1 &&
       (nr == 0 || fwrite(o->rows, sizeof *o->rows, nr, f) == nr) &&
       fwrite(&nv, sizeof nv, 1, f) == 1 &&
       (nv == 0 || fwrite(o->vtu, sizeof *o->vtu, nv, f) == nv) &&
       fwrite(&end, sizeof end, 1, f) == 1 && fwrite(counters, sizeof counters, 1, f) == 1;
  DT_CHECK(ok, ctx, DT_ERR_IO, "cannot write the output state: %s", strerror(errno));
cleanup:
  return rc;
}

static dt_status read_list(FILE *f, void **items, int *n, int *cap, size_t size, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  uint32_t count = 0;
  DT_CHECK(fread(&count, sizeof count, 1, f) == 1 && count < 100000000u, ctx, DT_ERR_IO,
           "checkpoint: truncated output state");
  *items = dt_malloc(size * (count ? count : 1));
  DT_CHECK(*items != NULL, ctx, DT_ERR_NOMEM, "out of memory reading the output state");
  DT_CHECK(count == 0 || fread(*items, size, count, f) == count, ctx, DT_ERR_IO,
           "checkpoint: truncated output state");
  *n = *cap = (int)count;
cleanup:
  return rc;
}

dt_status dt_output_open_resume(const char *dir, const char *job_name, const dt_model *m,
                                FILE *state, dt_output **out, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  dt_output *o = NULL;
  char *path = NULL;
  int64_t end = 0;
  int32_t counters[2] = {0, 0};
  /* truncates history.csv and writes its header; keeps the .frd */
  DT_TRY(dt_output_start(dir, job_name, m, 1, &o, ctx));
  DT_TRY(read_list(state, (void **)&o->rows, &o->n_rows, &o->cap_rows, sizeof *o->rows, ctx));
  DT_TRY(read_list(state, (void **)&o->vtu, &o->n_vtu, &o->cap_vtu, sizeof *o->vtu, ctx));
  DT_CHECK(fread(&end, sizeof end, 1, state) == 1 &&
               fread(counters, sizeof counters, 1, state) == 1 && end >= 0 && counters[0] >= 0 &&
               counters[1] >= 0,
           ctx, DT_ERR_IO, "checkpoint: truncated output state");
  o->frd.end = end;
  o->frd.blocks = counters[0];
  o->frd.sets = counters[1];
  DT_TRY(dt_frd_resume(&o->frd, ctx));
  for (int i = 0; i < o->n_rows; i++)
    DT_CHECK(dt_history_write_row(o->csv, &o->rows[i]) == 0, ctx, DT_ERR_IO,
             "cannot write history.csv in '%s': %s", dir, strerror(errno));
  if (o->n_vtu > 0) {
    DT_TRY(dt_output_path(dir, "results.pvd", &path, ctx));
    DT_TRY(dt_pvd_write(path, o->vtu, o->n_vtu, ctx));
  }
  *out = o;
  o = NULL;
cleanup:
  dt_free(path);
  dt_output_close(&o, m, NULL, NULL);
  return rc;
}
