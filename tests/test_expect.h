/* Failure counting that never aborts, so one run reports every broken case, and pi where the C
 * library leaves M_PI out: shared by the tests of the order-P elements, the partitions and the
 * GPU tests that use them. main returns failures != 0. */
#ifndef DT_TEST_EXPECT_H
#define DT_TEST_EXPECT_H

#include <stdio.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int failures __attribute__((unused)) = 0;

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
