/* Compute devices as the solver backend reports them (dt_backend_devices), for the workers
 * (gpus = auto: one worker per GPU), /v1/health, /metrics and admission by memory.
 *
 * With the CPU backend the "device" is the host: its name (CPU model and threads) and memory,
 * kind "cpu". Admission compares the solver's memory estimate of a job
 * (dt_analysis_estimate) with a device's total memory, further capped by max_job_bytes:
 * at submission against the largest device a worker uses (else 422 does_not_fit), and again
 * by the worker against its own device before it starts the job (the configuration may have
 * changed while the job waited). Before that, at submission and at a mesh upload, the floor of
 * the model's size as its text declares it (dt_analysis_floor_bytes) is compared with the same
 * limit, before the model is built. Order-P jobs run on the host whatever the backend: their
 * estimate is compared with the host's memory (dt_devices_admit_host). */
#ifndef DT_SRV_DEVICES_H
#define DT_SRV_DEVICES_H

#include <jansson.h>
#include <stddef.h>

#include "ductile.h"
#include "server.h"

/* Resolve the backend, log what was chosen, expand gpus = auto, check listed ordinals.
 * An unusable backend is only a warning (jobs fail until it is usable); a GPU ordinal the
 * backend does not have is an error (DT_ERR_INPUT). */
dt_status dt_devices_init(dt_server *srv, dt_ctx *ctx);
/* [{index, kind, name, memory_total, memory_free}] (free memory is at most 1 s old). */
json_t *dt_devices_json(dt_server *srv, int gpus_only);
/* Prometheus lines for device memory; returns the characters written (truncated to len). */
size_t dt_devices_prometheus(dt_server *srv, char *buf, size_t len);

typedef struct dt_fit {
  double estimate;       /* bytes the solver estimates for the job (0: no estimate) */
  double limit;          /* bytes allowed: device total memory, capped by max_job_bytes */
  char device[160];      /* the device that bounds the limit, e.g. "gpu 1 (NVIDIA H100 ...)" */
  char group[64];        /* the worker's devices when they are a group ("gpu 0+1"), else "" */
  int n_devices;         /* how many devices the limit's worker splits a job over */
  char no_estimate[512]; /* why no estimate could be made (estimate 0): the job goes on, and
                            its run reports the real error */
} dt_fit;
/* Does model m fit? worker: the worker's index, or -1 for the worker that holds the most. A
 * worker holds its device's total memory; a group of k devices (gpus = "0+1") holds k times
 * the smallest one's over 1.1, since each part of a split run takes its 1/k share of the
 * estimate plus the nodes it shares with other parts (devices.c, SPLIT_MARGIN); fit->limit is
 * that, in bytes of the whole job. DT_OK when it fits or when no estimate can be made
 * (fit->no_estimate says why); DT_ERR_DEVICE_NOMEM when it does not fit (the message says by
 * how much, and for a group the share and the smallest device). */
dt_status dt_devices_admit(dt_server *srv, const dt_model *m, int worker, dt_fit *fit, dt_ctx *ctx);
/* dt_devices_admit for a run whose estimate the caller has: the same limit, the message
 * naming solver ("cuda backend"). */
dt_status dt_devices_admit_bytes(dt_server *srv, double estimate, const char *solver, int worker,
                                 dt_fit *fit, dt_ctx *ctx);
/* For a run on the host whichever backend the workers use (the order-P solver): estimate
 * against the host's memory (the CPU backend's device), capped by max_job_bytes; fit->device
 * "host (...)". DT_ERR_DEVICE_NOMEM when it does not fit, naming solver. */
dt_status dt_devices_admit_host(dt_server *srv, double estimate, const char *solver, dt_fit *fit,
                                dt_ctx *ctx);
/* Can a model of size s (dt_size_scan, before anything is built) fit the largest device? Its
 * floor (dt_analysis_floor_bytes: the least any backend takes for it) against the limit of
 * dt_devices_admit: DT_ERR_DEVICE_NOMEM when even the floor does not fit, with a message that
 * starts with what ("the job does not fit", "no job on this mesh fits") and fit->estimate the
 * floor. The estimate of the built model (dt_devices_admit) is never below the floor. */
dt_status dt_devices_admit_size(dt_server *srv, const dt_model_size *s, const char *what,
                                dt_fit *fit, dt_ctx *ctx);

#endif
