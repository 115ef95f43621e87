/* Explicit dynamics of order-P elasticity on the GPUs (cuda/cuda_ho_explicit.cu) against the
 * CPU's time loop on the whole mesh (highorder/ho_explicit.c), step for step.
 *
 * Model: the seed's cantilever (ho_explicit_beam.h) on 16 x 2 x 2 elements of order 2, GLL
 * lumped mass, end traction 1e-3, damped at 0.3 of critical for the first mode, 300 steps of
 * half the CPU's stable step (the same dt on both sides, so the runs are the same sequence of
 * operations up to the order of the sums). References and tolerances:
 *   - the tip deflection at every step and u at the end: within 1e-10 of max |.| of the CPU's
 *     (round-off of the operator's sums, which the undamped-stable scheme does not amplify);
 *   - kinetic, internal, external and damping energies at the end: within 1e-9 relative of the
 *     CPU's; the energy balance at the samples within 1e-9 (discrete identity, ho_explicit.h);
 *   - omega_max from the GPUs' power iteration within 1% of the CPU's (different starts; both
 *     approach it from below).
 * Partitions: 1 part on GPU 0; 3 parts on GPU 0 (staged transport); one part on each of up to
 * 4 GPUs where the host has them (NCCL when built with it). Bad input: a step above the stable
 * limit, a zero mass, a watched DOF outside its part. Skips (77) without a device. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cuda/cuda_entry.h"
#include "highorder/ho_explicit.h"
#include "highorder/ho_explicit_beam.h"
#include "highorder/ho_parts.h"
#include "../test_expect.h"

#define STEPS 300

typedef struct history {
  double tip[STEPS + 1];
  int tip_dof; /* global DOF, CPU run */
  int seen;
} history;

static dt_status cpu_monitor(const dt_ho_explicit_state *s, void *user, dt_ctx *ctx) {
  (void)ctx;
  history *h = user;
  h->tip[s->step] = s->u[h->tip_dof];
  h->seen++;
  return DT_OK;
}

static dt_status gpu_monitor(const dt_multi_explicit_sample *s, void *user, dt_ctx *ctx) {
  (void)ctx;
  history *h = user;
  if (s->step >= 0 && s->step <= STEPS) h->tip[s->step] = s->watch[0];
  h->seen++;
  return DT_OK;
}

typedef struct gpu_case {
  int nparts;
  int devices[DT_MULTI_MAX_GPUS];
  const char *what;
} gpu_case;

static void run_case(const dt_ho_beam *b, const gpu_case *c, const dt_ho_explicit_opts *o,
                     const dt_ho_explicit_result *cpu, const history *ref, const double *u_ref) {
  dt_ctx ctx = {0};
  dt_ho_beam_parts bp;
  dt_ho_explicit_result res;
  dt_multi_explicit_info info;
  history h = {{0}, 0, 0};
  double *u[DT_MULTI_MAX_GPUS] = {0};
  double *glob = calloc(3 * (size_t)b->mesh.n_nodes, sizeof(double));
  const dt_ho_elastic *ops[DT_MULTI_MAX_GPUS];
  int G = c->nparts;
  dt_status st = dt_ho_beam_parts_build(b, G, &bp, &ctx);
  dt_ho_parts *const pp = &bp.parts;
  if (st == DT_ERR_UNSUPPORTED && G > 1) { /* a build without METIS cannot make the parts */
    printf("SKIP %s: %s\n", c->what, ctx.msg);
    goto done;
  }
  EXPECT(st == DT_OK, "%s: %s", c->what, ctx.msg);
  if (st != DT_OK) goto done;
  for (int s = 0; s < G; s++) {
    ops[s] = &pp->ops[s];
    u[s] = calloc(3 * (size_t)pp->parts[s].n_nodes, sizeof(double));
  }
  dt_multi_explicit_input in = {G,
                                c->devices,
                                pp->parts,
                                ops,
                                (const double *const *)bp.mass,
                                (const double *const *)pp->fre,
                                (const double *const *)bp.f,
                                NULL,
                                NULL,
                                1,
                                &bp.tip_part,
                                &bp.tip_dof};
  st = dt_cuda_multi_explicit(&in, o, u, gpu_monitor, &h, &res, &info, &ctx);
  EXPECT(st == DT_OK, "%s: %s", c->what, ctx.msg);
  if (st != DT_OK) goto done;
  EXPECT(res.steps == STEPS && h.seen == STEPS + 1, "%s: %d steps, %d monitor calls", c->what,
         res.steps, h.seen);
  double tmax = 0.0, tdiff = 0.0, umax = 0.0, udiff = 0.0;
  for (int k = 0; k <= STEPS; k++)
    tmax = fmax(tmax, fabs(ref->tip[k])), tdiff = fmax(tdiff, fabs(h.tip[k] - ref->tip[k]));
  EXPECT(tdiff <= 1e-10 * tmax, "%s: tip history off by %.2e of %.3e", c->what, tdiff / tmax, tmax);
  dt_ho_parts_gather(pp, u, glob);
  for (size_t i = 0; i < 3 * (size_t)b->mesh.n_nodes; i++)
    umax = fmax(umax, fabs(u_ref[i])), udiff = fmax(udiff, fabs(glob[i] - u_ref[i]));
  EXPECT(udiff <= 1e-10 * umax, "%s: final u off by %.2e of %.3e", c->what, udiff / umax, umax);
  const double e_gpu[4] = {res.kinetic, res.internal, res.external, res.damping};
  const double e_cpu[4] = {cpu->kinetic, cpu->internal, cpu->external, cpu->damping};
  const char *names[4] = {"kinetic", "internal", "external", "damping"};
  for (int k = 0; k < 4; k++)
    EXPECT(fabs(e_gpu[k] - e_cpu[k]) <= 1e-9 * fabs(e_cpu[k]), "%s: %s energy %.10e, CPU %.10e",
           c->what, names[k], e_gpu[k], e_cpu[k]);
  EXPECT(res.balance <= 1e-9, "%s: energy balance %.2e", c->what, res.balance);
  EXPECT(fabs(res.omega_max - cpu->omega_max) <= 0.01 * cpu->omega_max,
         "%s: omega_max %.6g, CPU %.6g", c->what, res.omega_max, cpu->omega_max);
  printf("%s: transport %s, %zu halo values; tip %.2e, u %.2e, energies within 1e-9; balance "
         "%.1e; omega_max %.6g (CPU %.6g); %.3f ms per step\n",
         c->what, info.transport, info.halo_values, tdiff / tmax, udiff / umax, res.balance,
         res.omega_max, cpu->omega_max, 1e3 * res.seconds / res.steps);
  if (G == 1) { /* bad input, on the one-part problem */
    dt_ctx bad = {0};
    dt_ho_explicit_opts o2 = *o;
    o2.dt = 2.5 / cpu->omega_max;
    EXPECT(dt_cuda_multi_explicit(&in, &o2, u, NULL, NULL, NULL, NULL, &bad) == DT_ERR_INPUT &&
               strstr(bad.msg, "above the stable limit"),
           "a step above the limit: %s", bad.msg);
    memset(&bad, 0, sizeof bad);
    double keep = bp.mass[0][5];
    bp.mass[0][5] = 0.0;
    EXPECT(dt_cuda_multi_explicit(&in, o, u, NULL, NULL, NULL, NULL, &bad) == DT_ERR_INPUT &&
               strstr(bad.msg, "not positive"),
           "a zero mass: %s", bad.msg);
    bp.mass[0][5] = keep;
    memset(&bad, 0, sizeof bad);
    int far = 3 * pp->parts[0].n_nodes;
    in.watch_dof = &far;
    EXPECT(dt_cuda_multi_explicit(&in, o, u, NULL, NULL, NULL, NULL, &bad) == DT_ERR_INPUT &&
               strstr(bad.msg, "is not in its part"),
           "a watched DOF outside: %s", bad.msg);
  }
done:
  for (int s = 0; s < G; s++) free(u[s]);
  free(glob);
  dt_ho_beam_parts_free(&bp);
}

int main(void) {
  char why[256] = "";
  dt_device_info dev[8];
  int n_dev = 0;
  dt_ctx ctx = {0};
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!dt_cuda_available(why, sizeof why)) {
    printf("SKIP: %s\n", why);
    return 77;
  }
  EXPECT(dt_backend_devices("cuda", dev, 8, &n_dev, &ctx) == DT_OK, "%s", ctx.msg);
  dt_ho_beam b;
  EXPECT(dt_ho_beam_setup(2, 16, 2, 2, 1000.0, 0.3, 1.0, 1e-3, DT_HO_MASS_GLL, &b, &ctx) == DT_OK,
         "%s", ctx.msg);
  dt_ho_explicit_problem pb;
  dt_ho_beam_problem(&b, &pb);
  double wmax = 0.0;
  EXPECT(dt_ho_explicit_omega_max(&pb, 40, &wmax, &ctx) == DT_OK, "%s", ctx.msg);
  dt_ho_explicit_opts o = {0};
  o.dt = 1.0 / wmax; /* half the stable limit */
  o.steps = STEPS;
  o.alpha = 0.3 * 2.0 * dt_ho_beam_omega1(&b);
  o.out_every = 1;
  history ref = {{0}, 3 * b.tip + 1, 0};
  dt_ho_explicit_result cpu;
  double *u = calloc(3 * (size_t)b.mesh.n_nodes, sizeof(double));
  EXPECT(dt_ho_explicit_run(&pb, &o, u, cpu_monitor, &ref, &cpu, &ctx) == DT_OK, "CPU: %s",
         ctx.msg);
  printf("CPU: %d elements, %d free DOFs, dt %.4g, tip at the end %.6e, balance %.1e\n",
         b.mesh.n_elems, b.free_dofs, cpu.dt, ref.tip[STEPS], cpu.balance);
  o.out_every = 64; /* samples at 64, 128, ... and the last step: chunks of the history */
  gpu_case one = {1, {0}, "1 part on GPU 0"};
  run_case(&b, &one, &o, &cpu, &ref, u);
  gpu_case three = {3, {0, 0, 0}, "3 parts on GPU 0"};
  run_case(&b, &three, &o, &cpu, &ref, u);
  if (n_dev >= 2) {
    gpu_case many = {n_dev < 4 ? n_dev : 4, {0, 1, 2, 3}, "one part per GPU"};
    run_case(&b, &many, &o, &cpu, &ref, u);
  }
  free(u);
  dt_ho_beam_free(&b);
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  return failures ? 1 : 0;
}
