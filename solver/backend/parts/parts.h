/* A run split over several devices: one instance of a backend per METIS part of the mesh,
 * behind the ordinary backend table, so the Newton driver, load stepping and PCG run unchanged
 * (docs/multi-gpu.md, "Implicit runs on several GPUs").
 *
 * Each part holds its elements and every node they touch (partition/partition.h: owned nodes
 * first, ghosts last). Vectors are kept consistent: a ghost holds its owner's value. Pointwise
 * operations keep them so on their own; what the parts' elements sum (the internal force, the
 * operator's product, the preconditioner's diagonal blocks) is completed by a sum exchange of
 * the shared nodes' values (partition/partition_exchange.h over the inner backend's transport:
 * NCCL between GPUs, host copies between host parts). Dot products sum each part's owned
 * prefix. The preconditioner is block Jacobi on the summed blocks, or AMG as additive Schwarz
 * over the parts: one hierarchy per part, built by its backend on its local tangent with the
 * summed diagonal blocks, the parts' V-cycles summed by one exchange (parts_backend.c).
 *
 * On a constrained DOF shared by m parts the operator's product is m x_i instead of x_i (each
 * part's identity row counts); PCG only applies it to vectors that vanish there, where both
 * are 0. Nodes no element uses go to part 0. Equations (*EQUATION) need no part hook: without
 * an mpc_apply the driver applies T and T^T on the host, through vec_get and vec_set. Refused:
 * preconditioners other than block Jacobi and AMG (two_level, jacobi and direct are not split;
 * "auto" becomes block_jacobi), AMG with the matrix-free operator, and meshes with fewer
 * elements than parts. */
#ifndef DT_PARTS_H
#define DT_PARTS_H

#include "backend/backend.h"

/* The compound backend. problem_upload needs dt_backend_options' n_devices, devices, inner
 * (which must offer dt_backend_part_ops) and model. */
extern const dt_backend_ops dt_parts_ops;

#endif
