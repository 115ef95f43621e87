#include "host_arrays.h"

#include <string.h>

void dt_host_fill(double *dst, const double *src, size_t n) {
  enum { CHUNK = 1 << 16 }; /* doubles per task: 512 kB, whole pages */
  long nchunks = (long)((n + CHUNK - 1) / CHUNK);
#pragma omp parallel for schedule(static) if (n > DT_HOST_PARALLEL_MIN)
  for (long k = 0; k < nchunks; k++) {
    size_t first = (size_t)k * CHUNK, len = n - first < CHUNK ? n - first : CHUNK;
    if (src)
      memcpy(dst + first, src + first, sizeof(double) * len);
    else
      memset(dst + first, 0, sizeof(double) * len);
  }
}
