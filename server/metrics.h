/* Process counters for /metrics (Prometheus text format 0.0.4). Jobs by state are read from
 * the store at scrape time; the rest are counters kept here. */
#ifndef DT_SRV_METRICS_H
#define DT_SRV_METRICS_H

#include <stddef.h>

void dt_metrics_http(int status);
/* A finished solve: wall seconds and outcome ("succeeded", "failed", "cancelled"). */
void dt_metrics_solve(double seconds, const char *outcome);
/* Append the counters in exposition format to a malloc'ed buffer; returns it (NULL on OOM). */
char *dt_metrics_render(const char *extra);

#endif
