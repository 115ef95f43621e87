/* The daemon's top-level state: configuration, HTTP daemon, workers. One instance, created by
 * main(); everything else receives it by pointer (no other global mutable state, except the
 * process-wide event bus and metrics counters). */
#ifndef DT_SRV_SERVER_H
#define DT_SRV_SERVER_H

#include <limits.h>
#include <stdatomic.h>

#include "config.h"

struct dt_workers;

typedef struct dt_server {
  dt_config cfg;
  char data_dir[PATH_MAX]; /* absolute */
  int port;                /* bound port */
  void *mhd;               /* struct MHD_Daemon * */
  struct dt_workers *workers;
  atomic_int draining;     /* SIGTERM received: refuse new work */
  char gpu_name[128];
} dt_server;

#endif
