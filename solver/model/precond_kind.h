/* Preconditioner kinds: the job's linear.preconditioner, and the `kind` of the backends'
 * pc_setup (which include problem.h, not model.h). */
#ifndef DT_PRECOND_KIND_H
#define DT_PRECOND_KIND_H

typedef enum dt_precond_kind {
  DT_PC_JACOBI = 0,
  DT_PC_BLOCK_JACOBI = 1, /* nodal blocks (3x3 in 3D, 2x2 in 2D) */
  DT_PC_TWO_LEVEL = 2,    /* block Jacobi plus a coarse correction on the rigid-body modes of
                             boxes of nodes (coarse_space.h) */
  DT_PC_AMG = 3,          /* smoothed-aggregation multigrid with the rigid-body modes
                             (solver/amg/amg.h); assembled operator, both backends */
  DT_PC_DIRECT = 4,       /* the tangent's sparse Cholesky factor (CHOLMOD): PCG converges in
                             one iteration; CPU backend, assembled operator, builds with
                             libsuitesparse-dev (backend/cpu/cpu_direct.c) */
  DT_PC_AUTO = 5          /* the job's default: dt_model_finish replaces it by two_level for 3D
                             models of at least DT_PC_AUTO_MIN_DOFS DOFs, else block_jacobi, and
                             a run on the CPU backend from DT_PC_AUTO_MIN_DOFS_HOST DOFs on
                             (dt_precond_auto); a run's block_jacobi may move to AMG
                             (DT_PC_AUTO_AMG_ITERATIONS). Last: dt_model_finish's range check
                             ends here */
} dt_precond_kind;

/* Or'ed into pc_setup's kind by the Newton driver: an AMG hierarchy may keep its transfers and
 * coarse levels from the last full setup and refresh only level 0 (its matrix is the new
 * tangent, its smoother's diagonal and lambda_max are recomputed): the V-cycle stays a symmetric
 * positive definite preconditioner of the new tangent, with a coarse correction of a nearby one.
 * The Galerkin products, the most expensive part of a refresh, are skipped. The direct
 * preconditioner keeps its last factor (a nearby tangent's). Other kinds, and a hierarchy of one
 * level, ignore it (newton.c says when it is asked for). */
#define DT_PC_KEEP_COARSE 0x100

/* Where two_level starts to pay (cubes of n^3 hex8 under [Kiran2023]'s load, after upload, on a
 * GPU and its 16-core host): n = 24 (47k DOFs) block Jacobi is faster on both
 * backends; n = 32 (108k DOFs) two_level is, GPU 0.043 s against 0.051 s and CPU 1.01 s against
 * 1.26 s; n = 48 (353k DOFs) 0.091 s against 0.157 s and 3.80 s against 5.73 s
 * (docs/benchmarks.md, decision table, "Linear solver"). */
#define DT_PC_AUTO_MIN_DOFS 100000
/* On the CPU backend two_level pays from far smaller models: on unstructured quadratic
 * tetrahedra block Jacobi needs 8-20 times its PCG iterations at 25-54k DOFs (plastic plate:
 * 30 s against 111 s at 25k DOFs, 108 s against 473 s at 54k, one core), and even on the hex8
 * cube at 47k DOFs it was not slower (2.8 s against 3.1 s, one core; docs/job-format.md, the
 * AMG table). Device backends keep DT_PC_AUTO_MIN_DOFS: a block Jacobi iteration there costs
 * one fused pass, and at 50k DOFs the whole real suite runs in 1.3-4.5 s with it on a GPU
 * (docs/benchmarks.md, Engineering parts). */
#define DT_PC_AUTO_MIN_DOFS_HOST 20000
/* Where "auto" chose block Jacobi for a 3D model with an assembled tangent on one backend, it
 * moves to AMG for the rest of the run when a solve has not converged in this many PCG
 * iterations (newton.c: that solve is stopped and done again with AMG, so a slow block Jacobi
 * solve costs this many, not its 1,000-2,200): the mesh, not its size, says which one pays. On the GPU at 46-53k DOFs
 * (docs/benchmarks.md, decision table "Linear solver") an AMG iteration costs about 14 block
 * Jacobi iterations, its builds and refreshes included, and AMG needs 30-50 iterations a solve,
 * so it wins from about 14 x 40 = 560 block Jacobi iterations a solve; on the CPU it wins
 * sooner. The J2 parts of the real suite take 1,000-2,200 (on the GPU AMG is 1.2-2.2x faster end
 * to end; on two CPU cores the tiny tet10 plate, 900 a solve, runs in 6.8 s against 18.9 s),
 * the Mohr-Coulomb footing about 300 (block Jacobi faster: 1.20 s against AMG's 1.71 s). */
#define DT_PC_AUTO_AMG_ITERATIONS 600
/* Where "auto" chose two_level for a 3D model with an assembled tangent on one backend, it moves
 * to AMG for the rest of the run at the next setup once two_level's solves have averaged more
 * than DT_PC_AUTO_TL_ITERATIONS PCG iterations over at least DT_PC_AUTO_TL_SOLVES of them
 * (newton.c). An average, not one solve: each increment's first solves take up to twice the
 * median. On an H200 at 0.36-2.4M DOFs an AMG iteration costs 5-7 two_level iterations, its
 * builds and refreshes (kept across increments) add about 100 a solve, and AMG takes 35-50
 * iterations a solve, so it wins from about 400 (docs/benchmarks.md, decision table "Linear
 * solver"): the real suite's large parts, with two_level's average and the linear solver's
 * seconds with it and with AMG, tet10 bracket 567 (22.8 against 14.6), flanged pipe 697 (7.5
 * against 6.6), lug 499 (21.5 against 16.3), footing 485 (21.6 against 18.5), notched bar 378
 * (15.9 against 17.4: stays). On the CPU, the 54k-DOF plastic plate's 941 a solve (108 s
 * against AMG's 95 s, one core) and the elastic plates' 200 (two_level faster) agree. */
#define DT_PC_AUTO_TL_ITERATIONS 400
#define DT_PC_AUTO_TL_SOLVES 3

/* What "auto" resolves to for a model of dim dimensions and n_dofs DOFs on a host (CPU,
 * host = 1) or device backend (model_finish.c). */
dt_precond_kind dt_precond_auto(int dim, long n_dofs, int host);

/* The job format's names, in dt_precond_kind order, NULL-terminated (model.c). */
extern const char *const dt_precond_names[];

#endif
