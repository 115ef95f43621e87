/* Private to solver/io/output_*.c: the writer's state and the helpers its files share.
 * Nothing outside solver/io includes this; the functions have hidden visibility. */
#ifndef DT_IO_OUTPUT_IMPL_H
#define DT_IO_OUTPUT_IMPL_H

#include <stdio.h>

#include "io/output.h"

#define DT_OUTPUT_INTERN __attribute__((visibility("hidden")))

/* One VTU of the collection. */
typedef struct dt_pvd_entry {
  char file[48];
  double time;
} dt_pvd_entry;

struct dt_output {
  char *dir;
  FILE *csv;
  int n_monitors;
  dt_history_row *rows; /* every row given so far, for summary.json */
  int n_rows, cap_rows;
  dt_pvd_entry *vtu;    /* every VTU written so far, for results.pvd and summary.json */
  int n_vtu, cap_vtu;
  int n_sets;           /* node sets of the model at open */
  double *set_rf;       /* 3 * n_sets total reaction of the last increment */
  double *set_u;        /* 3 * n_sets mean displacement of the last increment */
  int have_rf, have_u;  /* whether the last increment carried rf / u */
};

/* "dir/name" in a new dt_malloc'ed string (*out), or DT_ERR_NOMEM. */
DT_OUTPUT_INTERN dt_status dt_output_path(const char *dir, const char *name, char **out,
                                          dt_ctx *ctx);
/* mkdir -p; DT_ERR_IO names the component that could not be created. */
DT_OUTPUT_INTERN dt_status dt_output_mkdirs(const char *dir, dt_ctx *ctx);
/* Close f (opened on tmp_path) and rename tmp_path to path, so readers never see a partial
 * file; any earlier write error on f also fails. Removes tmp_path on failure. */
DT_OUTPUT_INTERN dt_status dt_output_commit(FILE *f, const char *tmp_path, const char *path,
                                            dt_ctx *ctx);

/* Write a whole file through write(fp, arg) into "<path>.tmp", then rename it over path
 * (dt_output_commit): readers never see a partial file. */
DT_OUTPUT_INTERN dt_status dt_output_write_file(const char *path, void (*write)(FILE *, const void *),
                                                const void *arg, dt_ctx *ctx);

/* history.csv */
DT_OUTPUT_INTERN int dt_history_write_header(FILE *f, const dt_model *m);
DT_OUTPUT_INTERN int dt_history_write_row(FILE *f, const dt_history_row *row);

/* VTU / PVD */
DT_OUTPUT_INTERN int dt_vtk_cell_type(int elem_type);
DT_OUTPUT_INTERN dt_status dt_vtu_write(const char *path, const dt_model *m, const dt_fields *f,
                                        dt_ctx *ctx);
/* A Float64 DataArray of ntuple tuples of ncomp components (ASCII, %.17g). */
DT_OUTPUT_INTERN void dt_vtu_write_doubles(FILE *fp, const char *name, const double *v,
                                           size_t ntuple, int ncomp, const char *const *comp_names);
/* The integration points of an increment as a VTU point cloud (stress, strain, PEEQ, Mises
 * at each point, with its element id), next to the mesh VTU. */
DT_OUTPUT_INTERN dt_status dt_vtu_points_write(const char *path, const dt_model *m,
                                               const dt_fields *f, dt_ctx *ctx);
DT_OUTPUT_INTERN dt_status dt_pvd_write(const char *path, const dt_pvd_entry *e, int n,
                                        dt_ctx *ctx);

/* summary.json */
DT_OUTPUT_INTERN dt_status dt_summary_write(const char *path, const dt_output *o,
                                            const dt_model *m, const dt_run_summary *s,
                                            dt_ctx *ctx);

#endif
