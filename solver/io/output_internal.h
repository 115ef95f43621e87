/* Private to solver/io/output_*.c: the writer's state and the helpers its files share.
 * Nothing outside solver/io includes this; the functions have hidden visibility. */
#ifndef DT_IO_OUTPUT_INTERNAL_H
#define DT_IO_OUTPUT_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "io/output.h"
#include "io/output_parts.h"

#include "core/intern.h"
#include "model/node_elems.h"

/* Writes queued or running at once: the caller waits for a free slot beyond this, so the
 * memory held by pending writes stays bounded (each holds one increment's fields). A writer
 * with a team (a device backend's) takes up to DT_OUTPUT_MAX_PENDING, so that a run of fast
 * increments (an elastic stretch, linear predictors alone) does not wait for it, while those
 * snapshots take at most 1/DT_OUTPUT_MEMORY_SHARE of the host's memory; others take 2. */
#define DT_OUTPUT_MAX_PENDING 4
#define DT_OUTPUT_DEFAULT_PENDING 2
#define DT_OUTPUT_MEMORY_SHARE 16

/* The kinds of file a job writes, for the writer's time on each (summary.json's
 * timings.output_files). */
enum { DT_WRITE_VTU, DT_WRITE_DAT, DT_WRITE_FRD, DT_WRITE_KINDS };

/* The mesh as the VTU files write it, copied from the model at the first VTU write: the VTU
 * writes read this, not the model (the mesh does not change during a run). */
typedef struct dt_vtu_mesh {
  int built;
  int n_nodes, n_elems;
  double *x;            /* 3 * n_nodes */
  int *elem_ptr;        /* the model's element offsets (the connectivity's length) */
  int64_t *vtk_conn;    /* connectivity in VTK's node order */
  int64_t *vtk_offsets; /* end of each cell in vtk_conn */
  uint8_t *vtk_types;
  int64_t *elem_id; /* NULL if the model has none */
  int32_t *section; /* NULL if the model has none */
} dt_vtu_mesh;

/* The buffers of a VTU job: (type, name). Inputs are copies of the dt_fields arrays; the rest
 * are derived by the writer thread, in buffers the caller allocated, so the thread itself never
 * allocates (it can fail only on I/O). Buffers are reused from one increment to the next. */
/* clang-format off */
#define DT_VTU_JOB_BUFFERS(X)                                                                      \
  X(double, u) X(double, rf) X(int, qp_ptr) X(double, qp_x) X(double, qp_stress)                  \
  X(double, qp_strain) X(double, qp_peeq) X(double, qp_mises) X(double, n_s) X(double, n_e)       \
  X(double, n_peeq) X(double, n_mises) X(double, c_s) X(double, c_e) X(double, c_peeq)            \
  X(double, c_mises) X(int64_t, cloud_conn) X(int64_t, cloud_offsets)               \
  X(int64_t, cloud_elem_id) X(int32_t, cloud_point) X(uint8_t, cloud_types) X(double, x_s)        \
  X(double, x_e) X(double, x_peeq) X(double, forc)
/* clang-format on */

/* One increment's files, written by the writer thread from a snapshot of its fields: the VTU
 * files when the increment is due for them, results.dat's blocks when a print request is due,
 * the .frd's result blocks when the .frd is due. */
typedef struct dt_vtu_job {
  int vtu;     /* write path, points_path and pvd_path */
  int dat;     /* append results.dat's blocks in dir (print requests of model) */
  int frd;     /* append the .frd's result blocks (output_frd.c) */
  int threads; /* the writer's team (dt_output_writer_threads): the kinds of file side by side,
                  and each one's formatting and nodal sums in parallel; 1: one after the other */
  const dt_node_elems *adj; /* the mesh's node lists (the VTUs' averages, the .frd's values) */
  int frd_u, frd_rf, frd_s, frd_e, frd_peeq; /* its blocks: DISP, FORC, STRESS, TOSTRAIN, PE */
  double seconds[DT_WRITE_KINDS]; /* the writer's time on each kind of file (dt_vtu_job_run) */
  const dt_model *model; /* for dat: print requests, sets and ids, unchanged during a run */
  char *dir;             /* the output directory (results.dat) */
  char *path;            /* increment_NNNN.vtu */
  char *points_path;     /* increment_NNNN_points.vtu, or NULL: no point fields */
  char *pvd_path;        /* results.pvd, rewritten after the VTUs with the entries below */
  dt_pvd_entry *pvd;
  int n_pvd;
  size_t cap_pvd;
  double time, load_factor;
  int step, increment;
  int n_nodes, n_elems, n_qp;
  int copied_u, copied_rf; /* u and rf copied (for the VTU, the .dat or the .frd) */
  int has_u, has_rf, has_s, has_e, has_peeq, has_mises; /* arrays of the mesh VTU */
  int q_s, q_e, q_peeq; /* point fields copied (qp_stress, qp_strain, qp_peeq) */
  int points;           /* write the point cloud (points_path) */
#define DT_VTU_JOB_FIELD(type, name)                                                               \
  type *name;                                                                                      \
  size_t cap_##name;
  DT_VTU_JOB_BUFFERS(DT_VTU_JOB_FIELD)
#undef DT_VTU_JOB_FIELD
} dt_vtu_job;

/* CalculiX's result file of a run, <job name>.frd (output_frd.c). The per-type extrapolation
 * matrices are built in the caller's thread before the first job; the file's state (end,
 * blocks, sets) is the writer thread's while jobs are pending, the caller's once they are
 * drained (checkpoints, resume). */
typedef struct dt_frd {
  int on;      /* the model asks for the file (output.frd) */
  char *path;  /* dir/<name>.frd */
  int built;   /* extrap filled */
  int plastic; /* some material is plastic: PE blocks are written (CalculiX writes them only
                  then) */
  double *extrap[DT_ELEM_NTYPES]; /* nodes x points of each element type in the mesh, row-major:
                                     nodal value = sum_q extrap[a*nqp + q] * point value q */
  char *buf; /* the writer thread's text, cap_buf bytes (dt_frd_build allocates it) */
  size_t cap_buf;
  long long end; /* bytes before the closing " 9999" line; 0: nothing written yet */
  int blocks;    /* result blocks written (the counter of the 1PSTEP lines) */
  int sets;      /* increments written (the number of the 100CL lines) */
} dt_frd;

/* The background writer: a FIFO of at most DT_OUTPUT_MAX_PENDING jobs and one thread. The
 * slots job[(head + i) % N], i < count, are queued (job[head] is being written); the caller
 * fills the next slot without the lock, since the thread never reads a slot outside that range. */
typedef struct dt_output_queue {
  int init;    /* mu and cv initialised */
  int started; /* thread running */
  int sync;    /* no thread could be started: jobs run in the caller */
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv; /* signalled on every change of count or stop */
  dt_vtu_job job[DT_OUTPUT_MAX_PENDING];
  int head, count, stop;
  int depth; /* slots in use (0 until the first job is queued, which sets it) */
  const dt_vtu_mesh *mesh;
  dt_frd *frd;   /* the .frd's state, which the jobs advance */
  dt_status err; /* the first failed write; later jobs are skipped */
  dt_ctx err_ctx;
  double busy[DT_WRITE_KINDS]; /* the jobs' seconds added up (under mu while the thread runs) */
  double waited;               /* the caller's seconds waiting for a free slot or a drain */
} dt_output_queue;

struct dt_output {
  char *dir;
  FILE *csv;
  int n_monitors;
  dt_history_row *rows; /* every row given so far, for summary.json */
  int n_rows, cap_rows;
  dt_pvd_entry *vtu; /* every VTU queued so far, for results.pvd and summary.json */
  int n_vtu, cap_vtu;
  int n_sets;          /* node sets of the model at open */
  double *set_rf;      /* 3 * n_sets total reaction of the last increment */
  double *set_u;       /* 3 * n_sets mean displacement of the last increment */
  int have_rf, have_u; /* whether the last increment carried rf / u */
  dt_vtu_mesh mesh;
  dt_frd frd;
  dt_output_queue q;
  int writer_threads; /* dt_output_writer_threads */
  dt_node_elems adj;  /* built at the first VTU or .frd write */
};

/* dt_output_open; with resume, files a checkpoint's record will restore are kept (the .frd). */
DT_INTERN dt_status dt_output_start(const char *dir, const char *job_name, const dt_model *m,
                                    int resume, dt_output **out, dt_ctx *ctx);
/* "dir/name" in a new dt_malloc'ed string (*out), or DT_ERR_NOMEM. */
DT_INTERN dt_status dt_output_path(const char *dir, const char *name, char **out, dt_ctx *ctx);
/* mkdir -p; DT_ERR_IO names the component that could not be created. */
DT_INTERN dt_status dt_output_mkdirs(const char *dir, dt_ctx *ctx);
/* Close f (opened on tmp_path) and rename tmp_path to path, so readers never see a partial
 * file; any earlier write error on f also fails. Removes tmp_path on failure. */
DT_INTERN dt_status dt_output_commit(FILE *f, const char *tmp_path, const char *path, dt_ctx *ctx);
/* The same after f's data reached the disk (fflush, fsync): a checkpoint, which a crash right
 * after the rename must find whole. */
DT_INTERN dt_status dt_output_commit_durable(FILE *f, const char *tmp_path, const char *path,
                                             dt_ctx *ctx);

/* Write a whole file through write(fp, arg) into "<path>.tmp", then rename it over path
 * (dt_output_commit): readers never see a partial file. */
DT_INTERN dt_status dt_output_write_file(const char *path, void (*write)(FILE *, const void *),
                                         const void *arg, dt_ctx *ctx);
/* Grow *p to at least `bytes` bytes (contents not kept); *cap is its size in bytes. */
DT_INTERN dt_status dt_output_reserve(void **p, size_t *cap, size_t bytes, dt_ctx *ctx,
                                      const char *what);

/* Averaging on plain arrays (output_average.c), for the writer thread, which has no model:
 * element means as dt_fields_element_average; nodal means of those element means (ncomp <= 6)
 * as dt_fields_nodal_average, gathered over each node's elements (a) in element order, in
 * OpenMP tasks of the caller's team (or serially outside one). */
DT_INTERN void dt_average_elements(int n_elems, const int *qp_ptr, const double *qp_values,
                                   int ncomp, double *elem_out);
DT_INTERN void dt_average_nodes_gather(const dt_node_elems *a, const int *qp_ptr,
                                       const double *elem, int ncomp, double *nodal_out);

/* VTU (binary appended, output_vtu.c) */
DT_INTERN int dt_vtk_cell_type(int elem_type);
/* Copy the mesh of m into mesh (once per run). Errors: DT_ERR_INTERNAL for an element type
 * the writer does not know, DT_ERR_NOMEM. */
DT_INTERN dt_status dt_vtu_mesh_build(dt_vtu_mesh *mesh, const dt_model *m, dt_ctx *ctx);
DT_INTERN void dt_vtu_mesh_free(dt_vtu_mesh *mesh);
/* Fill job j from f: copies of the fields the files need, buffers for what the thread
 * derives, the paths of increment NNNN in dir; vtu, dat and frd (frd, or NULL) say which files
 * the job writes. Runs in the caller's thread. */
DT_INTERN dt_status dt_vtu_job_fill(dt_vtu_job *j, const char *dir, const dt_model *m,
                                    const dt_fields *f, int vtu, int dat, const dt_frd *frd,
                                    dt_ctx *ctx);
DT_INTERN void dt_vtu_job_free(dt_vtu_job *j);
/* The bytes of j's buffers (a snapshot's size). */
DT_INTERN size_t dt_vtu_job_bytes(const dt_vtu_job *j);
/* Write job j: averages, increment_NNNN.vtu, the point cloud, results.pvd, then results.dat's
 * blocks, then the .frd's (advancing frd's state). Runs in the writer thread (or the caller's,
 * without one); reads mesh, j and, for the .dat and the .frd, the parts of j->model that do
 * not change during a run. */
DT_INTERN dt_status dt_vtu_job_run(const dt_vtu_mesh *mesh, dt_frd *frd, dt_vtu_job *j,
                                   dt_ctx *ctx);
/* The integration points of a job as a VTU point cloud (output_points.c). */
DT_INTERN dt_status dt_vtu_points_write(const dt_vtu_mesh *mesh, dt_vtu_job *j, dt_ctx *ctx);

/* The background writer (output_queue.c). */
/* A free slot for the next job, waiting while DT_OUTPUT_MAX_PENDING are pending; reports
 * (DT_ERR_IO) an earlier write that failed. */
DT_INTERN dt_status dt_output_queue_acquire(dt_output *o, dt_vtu_job **job, dt_ctx *ctx);
/* Queue the slot acquire gave (starting the thread at the first call). */
DT_INTERN dt_status dt_output_queue_submit(dt_output *o, dt_ctx *ctx);
/* Report a write that failed so far, without waiting. */
DT_INTERN dt_status dt_output_queue_check(dt_output *o, dt_ctx *ctx);
/* Wait until every queued job is written; report a failed write. */
DT_INTERN dt_status dt_output_queue_drain(dt_output *o, dt_ctx *ctx);
/* Drain, stop and join the thread, free the slots; report a failed write. */
DT_INTERN dt_status dt_output_queue_stop(dt_output *o, dt_ctx *ctx);

/* <job name>.frd (output_frd.c) */
/* Set up f for dir and m: the path, and whether m asks for the file; with fresh, an existing
 * file of that name is removed, since the run writes it anew. name NULL or empty: "results".
 * Errors: DT_ERR_INPUT for a name with a '/' or, when m asks for the file, a node or element id
 * beyond the file's 10 digits; DT_ERR_IO, DT_ERR_NOMEM. */
DT_INTERN dt_status dt_frd_open(dt_frd *f, const char *dir, const char *name, const dt_model *m,
                                int fresh, dt_ctx *ctx);
/* The extrapolation matrices of the element types of m (once per run, in the caller). */
DT_INTERN dt_status dt_frd_build(dt_frd *f, const dt_model *m, dt_ctx *ctx);
DT_INTERN void dt_frd_free(dt_frd *f);
/* Whether the .frd is written at increment f (output.every, a step's end). */
DT_INTERN int dt_frd_due(const dt_model *m, const dt_fields *f);
/* Which blocks job j writes and the buffers the thread fills (the caller's thread). */
DT_INTERN dt_status dt_frd_job_fill(const dt_frd *fr, dt_vtu_job *j, const dt_model *m,
                                    dt_ctx *ctx);
/* Append job j's result blocks (the header and the mesh first, at the first job) and the
 * closing line. Runs in the writer thread; reads j->model. */
DT_INTERN dt_status dt_frd_job_run(dt_frd *fr, dt_vtu_job *j, dt_ctx *ctx);
/* Cut the file back to the state a checkpoint recorded (end, blocks, sets already set). */
DT_INTERN dt_status dt_frd_resume(dt_frd *f, dt_ctx *ctx);

/* CalculiX's internal nodal forces (the reaction at a constrained DOF, the applied load at a
 * loaded free one) from the point stresses of f, at the nodes flagged in mask (NULL: every
 * node); out holds 3 * n_nodes values. Returns 0, or -1 when f lacks the model's points
 * (output_dat.c). */
DT_INTERN int dt_internal_forces(const dt_model *m, const dt_fields *f, const unsigned char *mask,
                                 double *out);

/* summary.json */
DT_INTERN dt_status dt_summary_write(const char *path, const dt_output *o, const dt_model *m,
                                     const dt_run_summary *s, dt_ctx *ctx);

#endif
