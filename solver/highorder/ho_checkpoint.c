/* Checkpoint files of order-P runs (ho_checkpoint.h). Every part of the file is a whole number
 * of 8-byte words, and the checksum is FNV-1a's multiply-xor taken a word at a time: each step
 * is a bijection of the running value, so any change confined to one word changes the sum,
 * and it costs a multiply per 8 bytes (a byte-wise FNV would take longer than the write). */
#include "highorder/ho_checkpoint.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "io/output_internal.h"

#define CK_MAGIC "DUCTHOC1"
#define CK_VERSION 1u
#define FNV_OFFSET 1469598103934665603ull
#define FNV_PRIME 1099511628211ull
#define CHUNK_WORDS 65536 /* words hashed per read when a check streams the arrays */

typedef struct ck_head {
  char magic[8];
  uint32_t version;
  uint32_t state_doubles; /* history doubles per point: the material's layout */
  int32_t order, nq, n_elems, n_nodes, n_increments, kept;
  uint64_t hash;
} ck_head;

typedef struct ck_row {
  int32_t newton, pcg;
  double residual;
  int64_t plastic;
} ck_row;

_Static_assert(sizeof(ck_head) % 8 == 0 && sizeof(ck_row) % 8 == 0, "whole words");

static uint64_t sum_words(uint64_t h, const void *p, size_t bytes) {
  const unsigned char *b = p;
  for (size_t i = 0; i + 8 <= bytes; i += 8) {
    uint64_t w;
    memcpy(&w, b + i, 8);
    h = (h ^ w) * FNV_PRIME;
  }
  return h;
}

static int put(FILE *f, const void *p, size_t bytes, uint64_t *h) {
  *h = sum_words(*h, p, bytes);
  return bytes == 0 || fwrite(p, 1, bytes, f) == bytes;
}

static int get(FILE *f, void *p, size_t bytes, uint64_t *h) {
  if (bytes > 0 && fread(p, 1, bytes, f) != bytes) return 0;
  *h = sum_words(*h, p, bytes);
  return 1;
}

/* The committed arrays of pl in file order, with their lengths in doubles. */
static void state_arrays(const dt_ho_plastic *pl, double *a[3], size_t n[3]) {
  size_t np = (size_t)pl->n_points;
  a[0] = pl->hist_c, n[0] = DT_MAT_STATE_DOUBLES * np;
  a[1] = pl->stress_c, n[1] = DT_HO_VOIGT * np;
  a[2] = pl->strain_c, n[2] = DT_HO_VOIGT * np;
}

static void head_of(const dt_ho_checkpoint *ck, ck_head *h) {
  memset(h, 0, sizeof *h);
  memcpy(h->magic, CK_MAGIC, 8);
  h->version = CK_VERSION, h->state_doubles = DT_MAT_STATE_DOUBLES;
  h->order = ck->order, h->nq = ck->nq, h->n_elems = ck->n_elems, h->n_nodes = ck->n_nodes;
  h->n_increments = ck->n_increments, h->kept = ck->kept, h->hash = ck->hash;
}

static int write_body(FILE *f, const dt_ho_checkpoint *ck, const double *u,
                      const dt_ho_plastic *pl) {
  uint64_t h = FNV_OFFSET;
  ck_head head;
  double *a[3];
  size_t n[3];
  int ok;

  head_of(ck, &head);
  ok = put(f, &head, sizeof head, &h);
  for (int k = 0; ok && k < ck->kept; k++) {
    ck_row r = {ck->row[k].newton, ck->row[k].pcg, ck->row[k].residual, ck->row[k].plastic};
    ok = put(f, &r, sizeof r, &h);
  }
  ok = ok && put(f, u, sizeof(double) * 3 * (size_t)ck->n_nodes, &h);
  state_arrays(pl, a, n);
  for (int k = 0; ok && k < 3; k++) ok = put(f, a[k], sizeof(double) * n[k], &h);
  return ok && fwrite(&h, sizeof h, 1, f) == 1;
}

dt_status dt_ho_checkpoint_write(const char *path, const dt_ho_checkpoint *ck, const double *u,
                                 const dt_ho_plastic *pl, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char tmp[4352];
  FILE *f = NULL;

  DT_CHECK(pl->n_points == (long)ck->n_elems * ck->nq * ck->nq * ck->nq && pl->op &&
               pl->op->n_nodes == ck->n_nodes && ck->kept >= 1 &&
               ck->kept <= DT_HO_NEWTON_MAX_INCREMENTS,
           ctx, DT_ERR_INPUT, "checkpoint '%s': the state's sizes are not the header's", path);
  DT_CHECK((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) < sizeof tmp, ctx, DT_ERR_IO,
           "checkpoint path too long: '%s'", path);
  f = fopen(tmp, "wb");
  DT_CHECK(f != NULL, ctx, DT_ERR_IO, "cannot create checkpoint '%s': %s", tmp, strerror(errno));
  DT_CHECK(write_body(f, ck, u, pl), ctx, DT_ERR_IO, "cannot write checkpoint '%s': %s", tmp,
           strerror(errno));
  rc = dt_output_commit_durable(f, tmp, path, ctx); /* closes f */
  f = NULL;
cleanup:
  if (f) fclose(f);
  if (rc != DT_OK) remove(tmp);
  return rc;
}

/* The header against expect: which part differs, or NULL. */
static const char *mismatch(const ck_head *h, const dt_ho_checkpoint *expect) {
  if (h->order != expect->order || h->nq != expect->nq) return "another order";
  if (h->n_elems != expect->n_elems || h->n_nodes != expect->n_nodes) return "another mesh";
  if (h->n_increments != expect->n_increments || h->hash != expect->hash)
    return "another job or mesh (its hash differs)";
  return NULL;
}

/* Hashes n doubles from f, into dst when given, else through a scratch buffer. */
static int get_doubles(FILE *f, double *dst, size_t n, double *buf, uint64_t *h) {
  if (dst) return get(f, dst, sizeof(double) * n, h);
  for (size_t done = 0; done < n;) {
    size_t k = n - done < CHUNK_WORDS ? n - done : CHUNK_WORDS;
    if (!get(f, buf, sizeof(double) * k, h)) return 0;
    done += k;
  }
  return 1;
}

static dt_status read_head(FILE *f, const char *path, const dt_ho_checkpoint *expect,
                           dt_ho_checkpoint *ck, uint64_t *h, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  ck_head head;
  const char *why = NULL;

  DT_CHECK(get(f, &head, sizeof head, h) && memcmp(head.magic, CK_MAGIC, 8) == 0, ctx, DT_ERR_INPUT,
           "'%s' is not an order-P checkpoint", path);
  DT_CHECK(head.version == CK_VERSION && head.state_doubles == DT_MAT_STATE_DOUBLES, ctx,
           DT_ERR_INPUT, "checkpoint '%s' has format %u (this build writes %u)", path, head.version,
           CK_VERSION);
  why = mismatch(&head, expect);
  DT_CHECK(!why, ctx, DT_ERR_INPUT, "checkpoint '%s' belongs to %s", path, why);
  DT_CHECK(head.kept >= 1 && head.kept <= head.n_increments &&
               head.kept <= DT_HO_NEWTON_MAX_INCREMENTS,
           ctx, DT_ERR_INPUT, "checkpoint '%s' is corrupt (%d increments of %d)", path, head.kept,
           head.n_increments);
  memset(ck, 0, sizeof *ck);
  ck->order = head.order, ck->nq = head.nq, ck->n_elems = head.n_elems;
  ck->n_nodes = head.n_nodes, ck->n_increments = head.n_increments, ck->kept = head.kept;
  ck->hash = head.hash;
  for (int k = 0; k < ck->kept; k++) {
    ck_row r;
    DT_CHECK(get(f, &r, sizeof r, h), ctx, DT_ERR_INPUT, "checkpoint '%s' is truncated", path);
    ck->row[k].newton = r.newton, ck->row[k].pcg = r.pcg;
    ck->row[k].residual = r.residual, ck->row[k].plastic = (long)r.plastic;
  }
cleanup:
  return rc;
}

dt_status dt_ho_checkpoint_read(const char *path, const dt_ho_checkpoint *expect,
                                dt_ho_checkpoint *ck, double *u, dt_ho_plastic *pl, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  FILE *f = fopen(path, "rb");
  uint64_t h = FNV_OFFSET, stored = 0;
  size_t np = (size_t)expect->n_elems * expect->nq * expect->nq * expect->nq;
  size_t n[3] = {DT_MAT_STATE_DOUBLES * np, DT_HO_VOIGT * np, DT_HO_VOIGT * np};
  double *a[3] = {NULL, NULL, NULL}, *buf = NULL;

  DT_CHECK(f != NULL, ctx, DT_ERR_IO, "cannot open checkpoint '%s': %s", path, strerror(errno));
  DT_CHECK((u == NULL) == (pl == NULL), ctx, DT_ERR_INTERNAL,
           "checkpoint '%s': u and the state are loaded together", path);
  DT_CHECK(!pl || (size_t)pl->n_points == np, ctx, DT_ERR_INPUT,
           "checkpoint '%s': the state to load has %ld points, the run %zu", path,
           pl ? pl->n_points : 0L, np);
  DT_TRY(read_head(f, path, expect, ck, &h, ctx));
  if (pl)
    state_arrays(pl, a, n);
  else
    DT_ALLOC(buf, CHUNK_WORDS, ctx, "checkpoint check buffer");
  DT_CHECK(get_doubles(f, u, 3 * (size_t)ck->n_nodes, buf, &h) &&
               get_doubles(f, a[0], n[0], buf, &h) && get_doubles(f, a[1], n[1], buf, &h) &&
               get_doubles(f, a[2], n[2], buf, &h) && fread(&stored, sizeof stored, 1, f) == 1,
           ctx, DT_ERR_INPUT, "checkpoint '%s' is truncated", path);
  DT_CHECK(fgetc(f) == EOF, ctx, DT_ERR_INPUT, "checkpoint '%s' is longer than its header says",
           path);
  DT_CHECK(stored == h, ctx, DT_ERR_INPUT, "checkpoint '%s' is corrupt (its checksum differs)",
           path);
  if (pl) dt_ho_plastic_rollback(pl); /* trial = committed, as after a commit */
cleanup:
  if (f) fclose(f);
  dt_free(buf);
  return rc;
}
