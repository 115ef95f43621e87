/* PCG iterations per linear solve over a run, kept as a histogram so that the median the
 * benchmarks report (issue targets are stated per Newton correction, as medians) costs no
 * allocation: a count of each iteration number below DT_PCG_COUNT_BINS, and one bin for the
 * solves at or above it. */
#ifndef DT_PCG_COUNTS_H
#define DT_PCG_COUNTS_H

#define DT_PCG_COUNT_BINS 4096

typedef struct dt_pcg_counts {
  int bins[DT_PCG_COUNT_BINS]; /* bins[i]: solves of i iterations; the last: i or more */
  long solves;
  int max; /* the most iterations of one solve */
} dt_pcg_counts;

static inline void dt_pcg_counts_add(dt_pcg_counts *c, int iterations) {
  const int i = iterations < 0 ? 0 : iterations;
  c->bins[i < DT_PCG_COUNT_BINS ? i : DT_PCG_COUNT_BINS - 1]++;
  c->solves++;
  if (i > c->max) c->max = i;
}

/* The lower median of the solves' iteration counts (DT_PCG_COUNT_BINS - 1 stands for "that many
 * or more"); 0 when there were none. */
static inline int dt_pcg_counts_median(const dt_pcg_counts *c) {
  long seen = 0;
  const long half = (c->solves + 1) / 2;
  for (int i = 0; i < DT_PCG_COUNT_BINS; i++) {
    seen += c->bins[i];
    if (seen >= half && c->solves > 0) return i;
  }
  return 0;
}

#endif
