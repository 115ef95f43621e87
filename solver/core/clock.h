/* The solver's clock: seconds on a monotonic clock, for the phase times the summary reports and
 * the benchmarks' measurements. */
#ifndef DT_CLOCK_H
#define DT_CLOCK_H

double dt_seconds(void);

#endif
