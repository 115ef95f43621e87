/* The daemon's top-level state: configuration, HTTP daemon, workers. One instance, created by
 * main(); everything else receives it by pointer (no other global mutable state, except the
 * process-wide event bus, the metrics counters and the device-query cache of devices.c). */
#ifndef DT_SRV_SERVER_H
#define DT_SRV_SERVER_H

#include <limits.h>
#include <stdatomic.h>

#include "config.h"
#include "tls.h"

struct dt_workers;
struct dt_leases;

typedef struct dt_server {
  dt_config cfg;
  char data_dir[PATH_MAX]; /* absolute */
  int port;                /* bound port */
  void *mhd;               /* struct MHD_Daemon * */
  struct dt_workers *workers;
  struct dt_leases *leases; /* the lease keeper (leases.h); NULL with SQLite */
  atomic_int draining;      /* SIGTERM received: refuse new work */
  atomic_int restarting;    /* SIGUSR1 or a GPU fault: after the drain the daemon starts afresh */
  char restart_why
      [512]; /* a worker's reason, written before it raises SIGUSR1 ("" : an operator's) */
  /* Restarts in place of this daemon (passed on across execv, main.c): count, last time, why. */
  int restarts;
  char last_restart_at[40];
  char last_restart_why[512];
  char backend_name[16];        /* what cfg.backend resolved to ("cpu", "cuda"); "" if unusable */
  char device_kind[8];          /* "gpu" or "cpu" (the CPU backend: the host is the device) */
  int can_checkpoint;           /* the backend can save and restore its per-point state */
  char dashboard_dir[PATH_MAX]; /* resolved (realpath) dashboard directory; "" when none */
  dt_tls tls;                   /* HTTPS certificate and key (tls.h); empty: plain HTTP */
} dt_server;

#endif
