/* The model: a mesh, materials, sections, load steps and solver options, as plain data.
 *
 * A model is what a job file (JSON, or later Gmsh/Abaqus decks) describes, after parsing and
 * before compiling for a backend. Everything is indexed from 0 internally; the user's node and
 * element ids are kept for messages and output. Every array is owned by the model and freed
 * by dt_model_destroy. Conventions (DESIGN.md §4): small strain, tension positive, consistent
 * units, Voigt order (xx, yy, zz, xy, xz, yz) with engineering shears, node-major DOFs. */
#ifndef DT_MODEL_H
#define DT_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "core/dt_status.h"
#include "material/material.h"
#include "precond_kind.h"

#define DT_NAME_MAX 64
#define DT_JOB_FORMAT_VERSION 1

typedef enum dt_elem_type {
  DT_ELEM_HEX8 = 0,
  DT_ELEM_TET4 = 1,
  DT_ELEM_TET10 = 2,
  DT_ELEM_QUAD4 = 3,
  DT_ELEM_TRI3 = 4,
  DT_ELEM_QUAD8 = 5,
  DT_ELEM_QUAD9 = 6,
  DT_ELEM_QUAD16 = 7,
  DT_ELEM_HEX20 = 8,    /* 20-node serendipity hexahedron, 3x3x3 points (C3D20) */
  DT_ELEM_HEX20R = 9,   /* the same element, 2x2x2 points (C3D20R) */
  DT_ELEM_WEDGE6 = 10,  /* 6-node wedge (prism), 2 points (C3D6) */
  DT_ELEM_WEDGE15 = 11, /* 15-node serendipity wedge, 9 points (C3D15) */
  DT_ELEM_QUAD8R = 12,  /* the 8-node quadrilateral, 2x2 points (CPE8R, CPS8R, CAX8R) */
  DT_ELEM_HEX8R = 13,   /* the 8-node hexahedron, one point, hourglass stiffness (C3D8R, static) */
  DT_ELEM_HEX8I = 14,   /* the 8-node hexahedron with incompatible modes, 2x2x2 points (C3D8I) */
  DT_ELEM_SHELL4 = 15,  /* 4-node MITC4 shell, 5 DOFs per node (S4, S4R): explicit steps only;
                           the types before it are the continuum types of element/element.h */
  DT_ELEM_NTYPES = 16
} dt_elem_type;

/* The continuum types (element/element.h) are the codes below this one. */
#define DT_ELEM_NCONTINUUM DT_ELEM_SHELL4

/* A named list of node or element indices (0-based, internal). */
typedef struct dt_set {
  char name[DT_NAME_MAX];
  int n;
  int *items;
} dt_set;

/* A named list of element faces. face[i] is the 0-based local face of elem[i] in the
 * numbering of solver/element/element.h (which follows CalculiX/Abaqus S1.. as face 0..). */
typedef struct dt_surface {
  char name[DT_NAME_MAX];
  int n;
  int *elem;
  int *face;
} dt_surface;

typedef struct dt_material {
  char name[DT_NAME_MAX];
  dt_material_params p;
  double density; /* mass per volume; 0 when not given (explicit steps need it > 0) */
} dt_material;

typedef enum dt_section_kind {
  DT_SECTION_SOLID = 0,        /* 3D continuum */
  DT_SECTION_PLANE_STRAIN = 1, /* 2D, unit thickness unless given */
  DT_SECTION_PLANE_STRESS = 2, /* 2D, thickness required (default 1) */
  DT_SECTION_SHELL = 3,        /* shell4 elements: thickness, points through it */
  DT_SECTION_AXISYMMETRIC = 4  /* 2D, x radial, y the axis: the hoop strain u_x / x as eps_zz,
                                  integrated over the full circumference (2 pi x dA); the
                                  thickness is unused */
} dt_section_kind;

typedef enum dt_formulation {
  DT_FORM_DEFAULT = 0, /* B-bar for hex8/quad4 with a plastic material, full otherwise */
  DT_FORM_FULL = 1,    /* full integration, standard B */
  DT_FORM_BBAR = 2,    /* mean-dilatation B-bar (hex8, quad4) */
  DT_FORM_REDUCED = 3  /* reduced integration: dt_model_finish makes the section's hex20
                          elements hex20r and its quad8 quad8r (a Gmsh mesh has no other way to
                          ask for them) */
} dt_formulation;

typedef struct dt_section {
  char elset_name[DT_NAME_MAX];
  int elset;    /* index into model->elsets */
  int material; /* index into model->materials */
  dt_section_kind kind;
  dt_formulation form;
  double thickness; /* 2D and shell sections; 1 if not given */
  int shell_points; /* shell sections: points through the thickness, 2..5 (Gauss; Simpson for 3
                       and 5 with a plastic material, shell_mitc4.h); 0 (the default)
                       until dt_model_finish resolves it: 2 for elastic, 5 for plastic materials */
} dt_section;

/* DOF bits for boundary conditions: x = 1, y = 2, z = 4; the rotations of shell nodes about the
 * global axes x = 8, y = 16, z = 32 (Abaqus DOFs 4-6). */
#define DT_DOF_X 1u
#define DT_DOF_Y 2u
#define DT_DOF_Z 4u
#define DT_DOF_RX 8u
#define DT_DOF_RY 16u
#define DT_DOF_RZ 32u
#define DT_DOF_ROT (DT_DOF_RX | DT_DOF_RY | DT_DOF_RZ)

/* Displacement boundary condition on a node set: for each DOF bit in `dofs`, the displacement
 * at the end of the step is value[d] (0 for "fixed"). */
typedef struct dt_bc {
  int nset;
  unsigned dofs; /* bit d: DOF d is prescribed */
  unsigned hold; /* bit d (within dofs): DOF d keeps the displacement the step starts from,
                      value[d] unused (CalculiX's *BOUNDARY, FIXED) */
  double value[3];
  int velocity; /* explicit steps: value[] are velocities held through the step (Abaqus
                   *BOUNDARY, TYPE=VELOCITY), not displacements; rotation bits are then fixed */
} dt_bc;

/* Concentrated force on every node of a set (force per node). */
typedef struct dt_cload {
  int nset;
  double f[3];
} dt_cload;

/* Pressure on a surface: force per area acting against the outward normal (Abaqus *DLOAD P). */
typedef struct dt_pressure {
  int surface;
  double p;
} dt_pressure;

/* Traction vector on a surface, force per area, global axes. */
typedef struct dt_traction {
  int surface;
  double t[3];
} dt_traction;

/* Body force on an element set, force per volume, global axes: b, plus, where spin > 0, the
 * centrifugal force of a rotation about the axis through axis_point along the unit vector axis,
 * spin r_perp(x) with spin = density * omega^2 and r_perp x's distance vector from the axis. */
typedef struct dt_body_force {
  int elset;
  double b[3];
  double spin;
  double axis_point[3], axis[3];
} dt_body_force;

/* How a step is solved. */
typedef enum dt_procedure {
  DT_PROC_STATIC = 0,  /* implicit, Newton per increment (the default) */
  DT_PROC_EXPLICIT = 1 /* explicit dynamics, central differences (solver/explicit/) */
} dt_procedure;

/* How an explicit step's loads follow time: held from the start, ramped linearly over the step,
 * or a table of (time, factor) pairs, linear between them and constant after the last. */
typedef enum dt_amplitude_kind {
  DT_AMP_STEP = 0, /* factor 1 from the start (Abaqus's default for explicit dynamics) */
  DT_AMP_RAMP = 1, /* factor t / time_period */
  DT_AMP_TABLE = 2
} dt_amplitude_kind;

#define DT_AMP_MAX_POINTS 64
typedef struct dt_amplitude {
  dt_amplitude_kind kind;
  int n; /* table points */
  double t[DT_AMP_MAX_POINTS], a[DT_AMP_MAX_POINTS];
} dt_amplitude;

/* An explicit step's controls (the defaults are set by dt_step_default). */
typedef struct dt_explicit_options {
  double time_period;     /* simulated time of the step, > 0 */
  double dt;              /* fixed time step; 0 (the default): the stable step */
  double dt_safety;       /* the stable step's factor on the element estimate (default 0.8) */
  double damping;         /* alpha of the mass-proportional damping C = alpha M, 1/time (0) */
  double rotary_scale;    /* factor on the shells' rotary inertia; 0 (the default): the
                             smallest factor that keeps the rotations from limiting the step */
  double hourglass;       /* one-point hex8: the hourglass stiffness coefficient (default 0.05;
                             the first step's holds for the run) */
  int output_every;       /* fields every n-th time step; 0: by output_frames */
  int output_frames;      /* fields at this many equal intervals of the step (default 20) */
  dt_amplitude amplitude; /* how the step's loads follow time (default DT_AMP_STEP) */
} dt_explicit_options;

/* Initial velocity of a node set (explicit steps), translations only. */
typedef struct dt_initial_velocity {
  int nset;
  double v[3];
} dt_initial_velocity;

/* A change of the material of an element set's elements at the start of a step (CalculiX's
 * *CHANGE SOLID SECTION): it holds for that step and the later ones, until another change. The
 * elastic response follows the new material at once: stresses are C (eps - eps_p) of the total
 * strain (material/j2.h), so a step that only changes E from E1 to E2 under the same load ends
 * with the displacements scaled by E1 / E2, as CalculiX's. */
typedef struct dt_material_change {
  int elset;    /* index into model->elsets */
  int material; /* index into model->materials */
} dt_material_change;
/* dt_initial_state.kind */
typedef enum dt_initial_kind {
  DT_INITIAL_STRESS = 0,        /* a stress the body holds before the first step */
  DT_INITIAL_PLASTIC_STRAIN = 1 /* a strain that makes no stress (eigenstrain) */
} dt_initial_kind;

/* An initial stress or plastic strain of elements (model_initial.c): at integration point
 * `point` (0-based, CalculiX's numbering) or at every point (-1), of element `elem`, or of every
 * element of element set `elset` when elem = -1, or of every element when both are -1.
 * At a point with coordinates x (reference configuration) the value is
 *     value[k] + sum_j grad[k][j] x[j],   k in Voigt order xx, yy, zz, xy, xz, yz,
 * shears as tensor components (strain: eps_xy, not gamma_xy). A later entry replaces an
 * earlier one of the same kind at a point. Both act through every step as one eigenstrain
 * eps0 = eps_p0 - C^-1 : sig0, so that sig = C : (eps - eps0 - eps_p) = sig0 + C : (eps - eps_p0
 * - eps_p) with eps_p the plastic strain the material adds. */
typedef struct dt_initial_state {
  int kind; /* dt_initial_kind */
  int elset, elem, point;
  double value[6];
  double grad[6][3];
} dt_initial_state;

/* A load step. Its BCs and loads are the complete state at the end of the step: loads ramp
 * linearly from the state the previous step left to these values; a DOF constrained before
 * but not here is released smoothly (its reaction ramps to the new load). */
typedef struct dt_step {
  char name[DT_NAME_MAX];
  int n_bc;
  dt_bc *bc;
  int n_cload;
  dt_cload *cload;
  int n_pressure;
  dt_pressure *pressure;
  int n_traction;
  dt_traction *traction;
  int n_body;
  dt_body_force *body;
  int n_material_changes; /* applied in order at the step's start (static steps only) */
  dt_material_change *material_changes;
  int automatic;          /* 0: fixed increments; 1: automatic with cutback */
  int n_increments;       /* fixed: number of equal increments (default 1) */
  double inc_initial;     /* automatic: first increment as a fraction of the step (default 1) */
  double inc_min;         /* automatic: smallest increment before giving up (default 1e-5) */
  double inc_max;         /* automatic: largest increment (default 1) */
  int max_cutbacks;       /* cutbacks allowed per increment (default 5, both modes) */
  dt_procedure procedure; /* default static */
  dt_explicit_options explicit_; /* procedure explicit */
} dt_step;

typedef enum dt_forcing_kind {
  DT_FORCING_FIXED = 0, /* every Newton correction solved to pcg_rtol */
  DT_FORCING_ADAPTIVE =
      1 /* inexact Newton: each correction solved only as far as it pays (forcing.h) */
} dt_forcing_kind;

/* The job format's names, in dt_forcing_kind order, NULL-terminated (model.c). */
extern const char *const dt_forcing_names[];

/* How the corrections of an increment are combined (newton.c). */
typedef enum dt_newton_accel {
  DT_ACCEL_AUTO = 0,  /* thomas when a material has the elastic tangent (Mohr-Coulomb), else none */
  DT_ACCEL_NONE = 1,  /* u += each correction (Newton; initial stiffness for Mohr-Coulomb) */
  DT_ACCEL_THOMAS = 2 /* Thomas's acceleration of [VilasBoas2020, Sec. 6.4] (eqs 6.1-6.3) */
} dt_newton_accel;

/* The job format's names, in dt_newton_accel order, NULL-terminated (model.c). */
extern const char *const dt_accel_names[];

/* newton.max_iterations when the job leaves it out: Newton converges quadratically, the
 * initial-stiffness iteration of a Mohr-Coulomb model only linearly. */
#define DT_NEWTON_MAX_ITER_DEFAULT 25
#define DT_NEWTON_MAX_ITER_ELASTIC_TANGENT 100

/* linear.max_iterations when the job leaves it out: PCG's iterations grow with the square root
 * of the condition number, about as n_dofs^(1/3) on 3D meshes, so the cap does too and is never
 * below the fixed 10,000 it replaces (a capped solve is an inexact step or escalates: newton.c). */
#define DT_PCG_MAX_ITER_MIN 10000
#define DT_PCG_MAX_ITER_PER_CBRT_DOF 100

typedef struct dt_solver_options {
  int newton_max_iter; /* corrections per increment; 0 (the default) until dt_model_finish
                              resolves it (DT_NEWTON_MAX_ITER_*) */
  double newton_rtol;  /* residual criterion: |r_free| <= rtol * force scale; default 1e-6 */
  double newton_dtol;  /* displacement criterion on the last correction: |c| <= dtol * |Delta u|;
                              default 1e-3 (see newton.c) */
  int pcg_max_iter;    /* the linear solver's cap; 0 (the default) until dt_model_finish
                              resolves it (DT_PCG_MAX_ITER_*) */
  double pcg_rtol;     /* relative residual; default 1e-9 */
  dt_precond_kind precond; /* default auto, which dt_model_finish resolves (precond_kind.h) */
  int precond_auto;        /* 1 when precond was chosen by that rule */
  dt_forcing_kind forcing; /* default fixed */
  dt_newton_accel accel;   /* default auto, which dt_model_finish resolves */
  int accel_auto;          /* 1 when accel was chosen by that rule */
  int matrix_free;         /* linear.operator: 0 "assembled" (the default), 1 "matrix_free": element
                              matrices stored per element, shared by congruent elastic elements
                              ([Kiran2023, Ch. 5]; problem_classes.c) */
  int tangent_constant;    /* set by dt_model_finish: every material's tangent is its elastic one
                              (elastic and Mohr-Coulomb materials), so an increment assembles
                              and preconditions the tangent once */
  int cuda_elements;       /* backend_options.elements: the CUDA backend's element kernels, a
                              dt_cuda_elements (backend/backend.h; 0 "auto", the default) */
  int cuda_tangent;        /* backend_options.tangent: the CUDA backend's tangent assembly, a
                              dt_cuda_tangent (0 "auto", the default) */
} dt_solver_options;

/* The job format's names of backend_options.elements and .tangent, in the order of backend.h's
 * dt_cuda_elements and dt_cuda_tangent, NULL-terminated (model.c). */
extern const char *const dt_cuda_elements_names[];
extern const char *const dt_cuda_tangent_names[];

/* Output request bits. */
#define DT_OUT_U 1u
#define DT_OUT_RF 2u
#define DT_OUT_S 4u
#define DT_OUT_E 8u
#define DT_OUT_PEEQ 16u
#define DT_OUT_MISES 32u
#define DT_OUT_ALL 63u /* the field files' variables */
/* Print-only element variables (*EL PRINT; io/output_energy.c): internal energy density per
 * point, internal energy and volume per element. */
#define DT_OUT_ENER 64u
#define DT_OUT_ELSE 128u
#define DT_OUT_EVOL 256u

typedef enum dt_monitor_kind {
  DT_MON_U = 0, /* mean displacement of the node set along dof */
  DT_MON_RF = 1 /* total reaction force of the node set along dof */
} dt_monitor_kind;

typedef struct dt_monitor {
  char name[DT_NAME_MAX];
  dt_monitor_kind kind;
  int nset;
  int dof; /* 0, 1, 2 */
} dt_monitor;

/* A print request (Abaqus *NODE PRINT / *EL PRINT, read from a deck): the listed fields of a
 * node or element set go to results.dat in CalculiX's .dat layout (solver/io/output_dat.h).
 * RF prints CalculiX's "forces": the internal nodal force at every node of the set (the
 * reaction at a constrained DOF, the applied load at a loaded free one). */
#define DT_MAX_PRINTS 64 /* a deck's requests over all its steps */
#define DT_PRINT_MAX_VARS 8
enum { DT_TOTALS_NO = 0, DT_TOTALS_YES = 1, DT_TOTALS_ONLY = 2 };
typedef struct dt_print_request {
  int element; /* 0: node set (*NODE PRINT), 1: element set (*EL PRINT) */
  int set;     /* index into nsets or elsets */
  unsigned
      fields; /* DT_OUT_U | DT_OUT_RF for nodes; DT_OUT_S, E, PEEQ, ENER, ELSE, EVOL for elements */
  int every;  /* FREQUENCY: every n-th increment of a step, and always its last (default 1) */
  int n_vars; /* the variables in the order of the request's data lines, one DT_OUT_* bit
                      each: CalculiX prints its blocks in that order; 0: those of `fields` in
                      the order U, RF / S, E, PEEQ */
  unsigned vars[DT_PRINT_MAX_VARS];
  int totals;     /* DT_TOTALS_*: TOTALS= (RF's "total force", ELSE's and EVOL's totals) */
  int local;      /* node prints: nodes with a *TRANSFORM print in its local axes (GLOBAL=NO) */
  int step_begin; /* the 0-based steps the request prints in: step_begin .. step_end - 1 */
  int step_end;   /* (CalculiX replaces a step's requests by a later step's); 0: to the end */
} dt_print_request;

typedef struct dt_output_options {
  unsigned fields; /* DT_OUT_* bits; default all */
  int vtu;         /* write VTU per converged increment (default 1) */
  int frd;         /* write CalculiX's result file <job name>.frd at the same increments as the
                      VTU (default 0; a deck's *NODE FILE / *EL FILE set it), io/output_frd.c */
  int points;      /* and beside it the integration-point values, increment_NNNN_points.vtu
                      (default 0: three times the main file's bytes on hexahedra) */
  int every;       /* write fields every n-th increment and always at a step's end (default 1) */
  int n_monitors;
  dt_monitor *monitors;
  int n_prints; /* print requests; 0 (the default): no results.dat */
  dt_print_request prints[DT_MAX_PRINTS];
} dt_output_options;

/* Linear multi-point constraints (Abaqus/CalculiX *EQUATION, the job's "equations"):
 * equation e is sum_k coef[k] u(node[k], dof[k]) = 0 over its terms k = eq_ptr[e] ..
 * eq_ptr[e + 1] - 1. Its first term's DOF is the dependent one: the solver eliminates it,
 * u_dep = -sum_{k>0} coef[k] / coef[first] u(node[k], dof[k]) (master-slave, as CalculiX does).
 * A dependent DOF is dependent in one equation only and has no boundary condition in any step
 * (dt_model_check_equations); it may be a term of other equations, which are then written in
 * the independent DOFs it stands for (dt_model_equations_resolve). */
typedef struct dt_equations {
  int n;              /* equations */
  int *ptr;           /* n + 1 offsets into the terms */
  int *node;          /* 0-based node index per term */
  unsigned char *dof; /* 0 (x), 1 (y), 2 (z) per term */
  double *coef;       /* coefficient per term */
  int cap, cap_terms; /* allocated equations and terms (dt_model_add_equation) */
} dt_equations;

/* A local nodal coordinate system (Abaqus/CalculiX *TRANSFORM) on a node set: boundary
 * conditions, concentrated loads and equation terms of its nodes name local directions, and
 * the node prints (results.dat) show their displacements and forces in them. Rectangular: local
 * x along a, local y in the plane of a and b, z = x cross y. Cylindrical: a and b are two points
 * of the axis; local x radial (from the axis to the node), z along the axis from a to b,
 * y = z cross x (tangential). */
typedef enum dt_transform_kind { DT_TRANSFORM_RECT = 0, DT_TRANSFORM_CYL = 1 } dt_transform_kind;
typedef struct dt_transform {
  int nset;
  dt_transform_kind kind;
  double a[3], b[3];
} dt_transform;

/* A tie (Abaqus/CalculiX *TIE, the job's "ties"): every slave node is bound to the master
 * surface at its projection, u_slave = sum_a N_a(st) u_a over the nodes a of the nearest master
 * face, one equation per direction (dt_model_lower_ties). The slave side is a node set or the
 * nodes of a surface's faces. */
typedef struct dt_tie {
  char name[DT_NAME_MAX];
  int slave_nset;    /* index into nsets, or -1 */
  int slave_surface; /* index into surfaces, or -1 (exactly one of the two is set) */
  int master;        /* index into surfaces */
  double tolerance;  /* largest slave-to-master distance that is tied; <= 0: the default, 2.5%
                        of the master faces' mean edge length */
  int adjust;        /* 1 (the default): a tied slave node moves onto its projection */
} dt_tie;
/* A constraint's share of the nodal forces the output prints (model_mpc.c): node `node`, DOF
 * `dof` (0-2) of a node no element uses (a rigid body's reference or rotation node, a mean
 * rotation's angle node) reports coef times the internal force at (dep_node, dep_dof), summed
 * over its terms: CalculiX's force at such a node, T^T f_int with the constraints written with
 * the body's nodes dependent, as CalculiX writes them. */
typedef struct dt_mpc_force {
  int dep_node, node;
  unsigned char dep_dof, dof;
  double coef;
} dt_mpc_force;

typedef struct dt_model {
  int version; /* job format version */
  char title[256];
  int dim; /* 2 or 3 */
  int n_nodes;
  double *x;        /* 3 * n_nodes coordinates (z = 0 in 2D) */
  int64_t *node_id; /* user ids */
  int n_elems;
  unsigned char *elem_type; /* dt_elem_type per element */
  int *elem_ptr;            /* n_elems + 1 offsets into conn */
  int *conn;                /* 0-based node indices, element-local order of element.h */
  int64_t *elem_id;         /* user ids */
  int *elem_section;        /* section index per element (set by dt_model_finish) */
  int n_nsets;
  dt_set *nsets;
  int n_elsets;
  dt_set *elsets;
  int n_surfaces;
  dt_surface *surfaces;
  int n_materials;
  dt_material *materials;
  int n_sections;
  dt_section *sections;
  int n_steps;
  dt_step *steps;
  int n_initial_velocities;
  dt_initial_velocity *initial_velocities;
  int n_initial_states;
  dt_initial_state *initial_states; /* initial stresses and plastic strains, in input order */
  dt_equations eq;                  /* linear constraints; eq.n = 0 when there are none */
  int n_transforms;
  dt_transform *transforms; /* local systems; a node in several sets takes the last one's */
  int *node_transform;      /* per node: its transform, or -1; NULL until
                               dt_model_lower_transforms (and without transforms) */
  int n_ties;
  dt_tie *ties;     /* lowered into equations by dt_model_lower_ties, which empties the list */
  int n_mpc_forces; /* the constraints' nodal forces (dt_mpc_force) */
  int cap_mpc_forces;
  dt_mpc_force *mpc_forces;
  unsigned char *node_isolated; /* per node: 1 when no element uses it (it carries constraint
                                   DOFs only); NULL when every node has an element; set by
                                   dt_model_finish */
  dt_solver_options solver;
  dt_output_options output;
} dt_model;

/* Allocate an empty model with default options. */
dt_status dt_model_create(dt_model **out, dt_ctx *ctx);
/* Free the model and everything it owns; NULL-safe; sets *m to NULL. */
void dt_model_destroy(dt_model **m);
/* Defaults for options (used by the parser before reading user values). */
void dt_solver_options_default(dt_solver_options *o);
void dt_step_default(dt_step *s);

/* Lookups by name; return the index or -1. */
int dt_model_find_nset(const dt_model *m, const char *name);
int dt_model_find_elset(const dt_model *m, const char *name);
int dt_model_find_surface(const dt_model *m, const char *name);
int dt_model_find_material(const dt_model *m, const char *name);

/* Assign each element its section, resolve the default formulation, and check everything a
 * parser cannot see locally: every element has exactly one section, sections match element
 * dimensions, plane stress is elastic, element geometry is valid (positive Jacobian at every
 * integration point, no NaN), every node is used. Messages name the element/node by user id. */
dt_status dt_model_finish(dt_model *m, dt_ctx *ctx);

/* The checks of dt_model_finish that concern the mesh alone, for a model that has a mesh but
 * no job yet (a Gmsh file; the JSON parser checks a mesh inside its job): the arrays, one
 * dimension (sets m->dim), finite node coordinates (z = 0 in 2D), every node used, sets that
 * refer to existing nodes and elements, and element geometry (positive Jacobian at every
 * integration point, and at the nodes of hexahedra and quadrilaterals). DT_ERR_INPUT names the
 * node or element by its user id. */
dt_status dt_model_check_mesh(dt_model *m, dt_ctx *ctx);

/* Append an equation of n >= 1 terms (0-based nodes, DOFs 0-2, coefficients; the first term is
 * the dependent one), copying the arrays. Checked later, by dt_model_check_equations. */
dt_status dt_model_add_equation(dt_model *m, int n, const int *node, const int *dof,
                                const double *coef, dt_ctx *ctx);

/* The rules of equations (CalculiX's): at least one term, nodes that exist, DOFs of the model's
 * dimension, finite coefficients, a nonzero coefficient on the dependent term, a dependent DOF
 * that is not a term of its own equation, dependent in no other equation and constrained by no
 * boundary condition of any step, no cycle of equations each depending on the next, and static
 * steps only. DT_ERR_INPUT names the nodes by user id and DOFs 1-3; *bad is the equation at
 * fault (-1 when the error is not one equation's). Called by dt_model_finish, which prefixes
 * the message with "equations[i]: "; a deck reader calls it first to name the line. */
dt_status dt_model_check_equations(const dt_model *m, int *bad, dt_ctx *ctx);

/* The equations written in independent DOFs only (dt_model_equations_resolve): dependent DOF
 * dof[i] (node-major, dpn per node) is sum_k val[k] u[col[k]] over k = ptr[i] .. ptr[i + 1] - 1,
 * each col independent, ascending and once. Owned; freed by dt_mpc_free. */
typedef struct dt_mpc {
  int n;
  int *dof;
  int *ptr;
  int *col;
  double *val;
} dt_mpc;

/* Substitute equations into each other until every term is an independent DOF (a dependent
 * DOF among another equation's terms stands for its own equation), merging repeated DOFs. A
 * cycle is DT_ERR_INPUT with *bad one of its equations. dpn: DOFs per node of the numbering. */
dt_status dt_model_equations_resolve(const dt_model *m, int dpn, dt_mpc *out, int *bad,
                                     dt_ctx *ctx);
void dt_mpc_free(dt_mpc *mpc);

/* Nonlinear multi-point constraints of CalculiX, linearised about the undeformed state for
 * small-strain static steps and added as equations (model_mpc.c). Called once the steps are
 * read: the choice of dependent DOFs looks at their boundary conditions.
 *
 * A rigid body (*RIGID BODY, the job's "rigid_bodies"): every node of nodes[0..n-1] other than
 * ref and rot follows u = u_ref + theta x (x - x_ref), theta the translational DOFs of node rot
 * (CalculiX's convention). Its nodes' DOFs are the dependent ones, as CalculiX writes them,
 * except that where ref or rot is used by no element and a DOF of it has no boundary condition,
 * that DOF is made dependent instead of the DOF of a body node chosen by pivoting (largest
 * pivot), so that no free DOF is left without stiffness. Repeated nodes count once. */
dt_status dt_model_add_rigid_body(dt_model *m, const int *nodes, int n, int ref, int rot,
                                  dt_ctx *ctx);
/* A mean rotation (*MPC MEANROT, the job's "mpcs"): the mean rotation of nodes[0..n-1] about
 * the axis along node rot's coordinates equals rot's DOF 1, linearised as CalculiX does for
 * linear steps: sum_i (a x p_i) . (u_i - u_mean) / |p_i|^2 = n theta, p_i the node's position
 * from the nodes' centroid projected normal to the axis a (nodes on the axis are skipped, with
 * *skipped counting them). The dependent DOF is CalculiX's (the largest coefficient of the
 * first node with one above 1e-5 that is neither dependent nor held) or, where rot is used by
 * no element and its DOF 1 has no boundary condition, that DOF. */
dt_status dt_model_add_meanrot(dt_model *m, const int *nodes, int n, int rot, int *skipped,
                               dt_ctx *ctx);
/* The rules of nodes no element uses (dt_model_finish): static steps only, and each of its DOFs
 * that is an independent term of the resolved equations needs a boundary condition in every
 * step (it has no stiffness of its own); its other DOFs are dependent terms or held, at their
 * boundary condition's value or at 0 (CalculiX's answer for a node only a load or a boundary
 * names, such as a PxNP pressure's carrier). Sets
 * node_isolated. DT_ERR_INPUT names the node; *bad is its index (-1 when the error is not one
 * node's), for a deck reader to name the line that uses it. */
dt_status dt_model_check_isolated(dt_model *m, int *bad, dt_ctx *ctx);
/* The forces of nodes no element uses (dt_mpc_force) added to f (3 per node) from the internal
 * forces already in f; nothing before dt_model_check_isolated. */
void dt_model_mpc_forces(const dt_model *m, double *f);

/* Append a *TRANSFORM (a, b copied); checked by dt_model_lower_transforms. */
dt_status dt_model_add_transform(dt_model *m, int nset, dt_transform_kind kind, const double a[3],
                                 const double b[3], dt_ctx *ctx);

/* The geometry of transform t alone: a nonzero a not parallel to b (rectangular), two distinct
 * axis points (cylindrical). DT_ERR_INPUT says what is wrong. */
dt_status dt_model_check_transform(const dt_model *m, int t, dt_ctx *ctx);

/* Node i's local axes as the rows of e (e[k] the unit vector of local direction k in global
 * components); 0 when the node has no transform (e untouched). Valid after
 * dt_model_lower_transforms. */
int dt_model_node_axes(const dt_model *m, int i, double e[3][3]);

/* Rewrite the model in global DOFs, keeping node_transform for the output: local concentrated
 * loads become global ones, equation terms on transformed nodes expand into their global
 * components, and the local boundary conditions of a node, with the equations whose first term
 * is on it, are eliminated (Gauss-Jordan on the node's three DOFs, largest pivot first) into
 * equations that each make one of its global DOFs dependent, or into ordinary boundary
 * conditions where a row is a single DOF. Refused (DT_ERR_INPUT, naming the node): static steps
 * only, a node on a cylindrical transform's axis, local boundary conditions that differ between
 * steps, FIXED (hold), a nonzero value in a direction that is no global axis, and more
 * constraints on a node than it has independent DOFs. Nothing to do without transforms. */
dt_status dt_model_lower_transforms(dt_model *m, dt_ctx *ctx);

/* Append a tie (copied); checked and lowered by dt_model_lower_ties. */
dt_status dt_model_add_tie(dt_model *m, const dt_tie *tie, dt_ctx *ctx);

/* Lower every tie into equations (CalculiX's rules for static solid models): each slave node is
 * projected onto the nearest face of the master surface (Newton on the face's shape functions,
 * the point kept on the face); within the tolerance it gets one equation per displacement,
 * u_slave - sum_a N_a u_a = 0, and with adjust it moves onto the projection. A slave DOF that a
 * boundary condition of some step holds, or that an equation already makes dependent, gets none
 * (as CalculiX does, with a warning); a slave node that is itself a node of the master surface
 * gets none (its equation would read u = u). DT_ERR_INPUT, with *bad the tie at fault, for a
 * slave node with no master face within the tolerance (naming the node, its distance and the
 * tolerance), master faces of elements other than 3D solids, explicit steps, and ties whose
 * equations depend on each other in a cycle. warn (may be NULL) receives each warning line;
 * *bad is -1 when the error is not one tie's. Empties m->ties. */
dt_status dt_model_lower_ties(dt_model *m, void (*warn)(void *arg, const char *msg), void *arg,
                              int *bad, dt_ctx *ctx);
/* Append an initial stress or plastic strain (copied; the only way states enter a model, which
 * keeps their array's capacity implicit); checked by dt_model_check_initial. */
dt_status dt_model_add_initial_state(dt_model *m, const dt_initial_state *s, dt_ctx *ctx);

/* The rules of initial stresses and plastic strains: an element, set and point that exist
 * (the point among the element's integration points), finite values, continuum elements of
 * static steps only (the explicit solver and shells take none). DT_ERR_INPUT names the element
 * by user id; *bad is the entry at fault (-1 when not one entry's). Called by dt_model_finish,
 * which prefixes "initial_conditions[i]: "; a deck reader calls it first to name the line. */
dt_status dt_model_check_initial(const dt_model *m, int *bad, dt_ctx *ctx);

/* The eigenstrain per integration point that the initial states of the model amount to
 * (Voigt, engineering shears, structure of arrays: component k of point q at k * n_qp + q),
 * from each point's stress sig0 and plastic strain eps_p0 as eps0 = eps_p0 - C^-1 : sig0 with
 * the elastic constants of the element's material (dt_model_finish done). *out is NULL
 * (and nothing is allocated) when the model has no initial states; the caller frees it. */
dt_status dt_model_initial_eigenstrain(const dt_model *m, const int *qp_ptr, int n_qp, double **out,
                                       dt_ctx *ctx);

/* Print a short description of the model (sizes, sets, materials, steps). */
void dt_model_view(const dt_model *m, FILE *f);

#endif
