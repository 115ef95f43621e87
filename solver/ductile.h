/* libductile's public interface: what the daemon, the command-line tools and other programs
 * that run analyses include. Everything else under solver/ is private to the library (its
 * tests read it white-box); a backend is written against backend/backend.h.
 *
 *   core/dt_status.h      dt_status, dt_ctx: every call that can fail returns a status and
 *                         fills the context's message (what and where)
 *   core/results.h        dt_fields, dt_history_row, dt_run_summary: what a run produces
 *   core/utf8.h           UTF-8 checks for text that goes into JSON (titles, names)
 *   model/model.h         dt_model: mesh, materials, steps, solver and output options
 *   model/mesh_box.h      structured box meshes generated in memory (benchmarks, examples)
 *   io/import.h           Abaqus/CalculiX decks and Gmsh meshes into a dt_model
 *   io/size_scan.h        the nodes and elements a job, mesh or deck declares, counted from its
 *                         text before anything is built
 *   io/job_json.h         the JSON job format (docs/job-format.md) into a dt_model
 *   io/output.h           the result files: history.csv, VTU + PVD, results.dat, summary.json
 *   partition/partition.h parts of a mesh for several GPUs (METIS), local numbering, halo lists
 *   backend/backend.h     the backend registry (dt_backend_find, names, device probes)
 *   analysis/analysis.h   dt_analysis_run: the incremental Newton analysis of a model
 *   analysis/checkpoint.h checkpoints of a run, to resume after a crash */
#ifndef DUCTILE_H
#define DUCTILE_H

#include "core/dt_status.h"
#include "core/results.h"
#include "core/utf8.h"
#include "model/model.h"
#include "model/mesh_box.h"
#include "io/import.h"
#include "io/size_scan.h"
#include "io/job_json.h"
#include "io/output.h"
#include "partition/partition.h"
#include "backend/backend.h"
#include "analysis/analysis.h"
#include "analysis/checkpoint.h"

#endif
