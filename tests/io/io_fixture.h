/* A hand-built model and fields for the output tests, independent of the job parser:
 * two hex8 elements sharing the face x = 1 of the box [0,2]x[0,1]x[0,1], 12 nodes,
 * node n = i + 3 j + 6 k at (i, j, k). Element-constant point fields with zero-mean
 * perturbations, so element and nodal averages are known exactly. */
#ifndef DT_TEST_IO_FIXTURE_H
#define DT_TEST_IO_FIXTURE_H

#include "io/output.h"
#include "model/model.h"
#include "core/results.h"

#define FIX_QP 8 /* points per element */

/* Fill m (zeroed by the caller) with the mesh, node sets left/right/all and two monitors. */
void fix_model(dt_model *m);
void fix_model_free(dt_model *m);
/* Fields of increment `inc` (1-based); values depend on inc so rows and files differ. */
void fix_fields(const dt_model *m, int inc, dt_fields *f);
/* Exact element means of the fixture's stress and PEEQ (element e, component c). */
double fix_elem_stress(int e, int c, int inc);
double fix_elem_peeq(int e, int inc);

/* Test assertion: print where and why, then exit non-zero. */
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: check failed: %s\n  ", __FILE__, __LINE__, #cond);                   \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

#endif
