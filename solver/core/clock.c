/* The solver's clock (clock.h). */
#include "clock.h"

#include <time.h>

double dt_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
