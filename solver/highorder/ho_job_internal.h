/* Private to highorder/ho_job*.c. */
#ifndef DT_HO_JOB_INTERNAL_H
#define DT_HO_JOB_INTERNAL_H

#include "core/dt_status.h"
#include "core/intern.h"

/* Refuses, by name, every key of the JSON job at path outside the order-P subset (ho_job.h);
 * DT_OK for a file that cannot be read or parsed (the job parser reports those). */
DT_INTERN dt_status ho_job_check_keys(const char *path, dt_ctx *ctx);

#endif
