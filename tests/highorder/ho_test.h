/* What the tests of the tensor-product elements share: failure counting that never aborts (one
 * run reports every broken case) and pi where the C library leaves M_PI out. */
#ifndef DT_HO_TEST_H
#define DT_HO_TEST_H

#include <stdio.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int failures = 0;

/* Record a failure with its location and a printf-style explanation. */
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);                            \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      failures++;                                                                                  \
    }                                                                                              \
  } while (0)

#endif
