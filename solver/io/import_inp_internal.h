/* Private to solver/io/import_inp*.c: the deck reader's state.
 *
 * The deck is first read into records (keyword or data lines, with *INCLUDE expanded, comments
 * and blank lines dropped, continued keyword lines joined), each remembering its file and line.
 * The parser then walks the records: each supported keyword has a handler (import_inp.c's
 * table) that reads its parameters and consumes its data lines. Abaqus step semantics (BCs and
 * loads propagate unless OP=NEW) are kept in `state` and written out as complete per-step
 * lists at *END STEP. */
#ifndef DT_IO_IMPORT_INP_INTERNAL_H
#define DT_IO_IMPORT_INP_INTERNAL_H

#include "import_common_internal.h"

#define INP_MAX_PARAMS 16
#define INP_MAX_TOKENS 64

typedef struct inp_rec {
  char *text;  /* the line (keyword lines joined), NUL-terminated; tokenised in place once */
  int file;    /* index into inp.files */
  int line;    /* 1-based line in that file */
  int keyword; /* starts with '*' */
} inp_rec;

typedef struct inp_kw {
  char name[48]; /* upper case, single spaces: "*SOLID SECTION" */
  int rec;       /* record index, for messages */
  int n_params;
  char key[INP_MAX_PARAMS][32]; /* upper case */
  char *value[INP_MAX_PARAMS];  /* trimmed, case kept; "" for a key without '=' */
  unsigned used;                /* bit i: params[i] was read by the handler */
  char buf[2048];               /* the parsed copy of the line */
} inp_kw;

/* Propagated step state (Abaqus semantics), one entry per (target, DOF) or target. */
typedef struct inp_bc {
  int nset, dof; /* dof 0-2 displacements, 3-5 the rotations of shell nodes */
  int hold;      /* *BOUNDARY, FIXED: the displacement the step starts from */
  int velocity;  /* *BOUNDARY, TYPE=VELOCITY (explicit steps): value is a velocity */
  double value;
  int model_level; /* from the model data: OP=NEW does not remove it */
} inp_bc;
typedef struct inp_cload {
  int nset, dof;
  double value;
} inp_cload;
typedef struct inp_press {
  int surface;
  int surface_based; /* from *DSLOAD (OP=NEW there drops these), else from *DLOAD */
  double value;
  int np_node; /* *DLOAD PxNP: the node whose DOF 2 boundary value is the pressure, resolved
                  at *END STEP (value unused); -1 for a pressure given by value */
  int np_rec;  /* the PxNP line */
} inp_press;
typedef struct inp_grav {
  int elset;
  int centrif;   /* 0: GRAV, 1: CENTRIF */
  double g[3];   /* GRAV: magnitude times direction; times density gives the body force */
  double omega2; /* CENTRIF: omega^2, and the axis through point along the unit vector axis */
  double point[3], axis[3];
} inp_grav;
/* An *AMPLITUDE table, by name. */
typedef struct inp_amp {
  char name[DT_NAME_MAX]; /* upper case */
  int rec;
  dt_amplitude a;
} inp_amp;

/* A *RIGID BODY (ref, rot) or *MPC MEANROT (rot: the angle node) waiting for the steps
 * (import_inp_mpc.c). */
typedef struct inp_nlmpc {
  int rec, kind;
  int *nodes, n; /* owned */
  int ref, rot;
} inp_nlmpc;
typedef struct inp_global inp_global; /* a *SUBMODEL (import_inp_submodel.c) */

typedef struct inp {
  const char *path;
  const dt_import_options *opt;
  dt_ctx *ctx;
  char **files; /* file names (owned) */
  int n_files, cap_files;
  char **bufs; /* file contents and joined lines (owned) */
  int n_bufs, cap_bufs;
  inp_rec *recs;
  int n_recs, cap_recs;
  int pos; /* next record */
  int include_depth;

  dt_model *m;
  int cap_nodes, cap_elems, cap_conn, cap_nsets, cap_elsets, cap_surfaces, cap_materials,
      cap_sections, cap_steps;
  int *nset_cap, *elset_cap, *surf_cap; /* capacity of each set's item array */
  int *node_rec, *elem_rec;             /* record of each node/element definition */
  unsigned char *elem_kind;             /* dt_section_kind implied by each element's type */
  unsigned char *elem_c3d8r;            /* 1 for an element read as C3D8R */
  int c3d8r_rec;                        /* the first *ELEMENT, TYPE=C3D8R (-1: none) */
  dt_imp_idmap nodes, elems;
  int nodes_dirty, elems_dirty;
  char (*sec_material)[DT_NAME_MAX]; /* per section: its material's name (upper case) */
  int *sec_rec;                      /* per section: the record of its *SOLID/SHELL SECTION */
  int material;                      /* material being defined (-1: none) */
  int plastic_rec, cyclic_rec;       /* *PLASTIC,HARDENING=COMBINED waiting for *CYCLIC HARDENING */
  int step_rec;                      /* record of the open *STEP, -1 outside a step */
  int step_has_procedure;
  int file_seen;                /* a *NODE FILE or *EL FILE was read */
  int print_seen[2];            /* a *NODE PRINT [0] / *EL PRINT [1] was read in this step */
  int print_rec[DT_MAX_PRINTS]; /* per print request: the record of its keyword */

  inp_bc *bc;
  int n_bc, cap_bc;
  inp_cload *cl;
  int n_cl, cap_cl;
  inp_press *pr;
  int n_pr, cap_pr;
  inp_grav *gr;
  int n_gr, cap_gr;
  int bc_new, cl_new, dl_new, ds_new; /* OP=NEW already applied in this step */

  /* Explicit dynamics (import_inp_explicit.c). */
  inp_amp *amps; /* *AMPLITUDE tables */
  int n_amps, cap_amps;
  int static_rec, explicit_rec; /* the first *STATIC and *DYNAMIC, EXPLICIT (-1: none yet) */
  int step_explicit;            /* the open step is *DYNAMIC, EXPLICIT */
  int step_amp_kind;            /* *STEP, AMPLITUDE=: DT_AMP_STEP or DT_AMP_RAMP, -1 not given */
  int step_amp, step_amp_rec;   /* the *AMPLITUDE this step's AMPLITUDE= name, and where (-1) */
  int step_default_rec; /* a keyword of this step with nonzero values and no AMPLITUDE= (-1) */
  int ic_rec;           /* the first *INITIAL CONDITIONS, TYPE=VELOCITY (-1: none) */
  int istate_rec[2];    /* the first *INITIAL CONDITIONS of each dt_initial_kind (-1: none) */
  inp_cload *ivl;       /* its lines in deck order: node set, DOF (0-2), velocity */
  int n_ivl, cap_ivl;

  int *eq_rec; /* per equation of the model: the record of its number of terms */
  int cap_eq_rec;
  int transform_rec; /* the first *TRANSFORM (-1: none) */
  int *tie_rec;      /* per tie of the model: the record of its *TIE */
  int cap_tie_rec;
  inp_nlmpc *nlmpc; /* *RIGID BODY and *MPC definitions, lowered by inp_mpcs_done */
  int n_nlmpc, cap_nlmpc;
  inp_global *subs; /* *SUBMODEL: the global result files and their driven nodes */
  int n_subs, cap_subs;
} inp;

#define INP_INTERN DT_INTERN

/* "file:line: message" as DT_ERR_INPUT for record rec. */
INP_INTERN dt_status inp_error(inp *p, int rec, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define INP_CHECK(cond, p, rec, ...)                                                               \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      rc = inp_error((p), (rec), __VA_ARGS__);                                                     \
      goto cleanup;                                                                                \
    }                                                                                              \
  } while (0)
INP_INTERN void inp_warn(inp *p, int rec, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Lexing (import_inp_lex.c). */
INP_INTERN dt_status inp_read(inp *p, const char *path, int from_rec);
INP_INTERN void inp_free_text(inp *p);
INP_INTERN dt_status inp_keyword(inp *p, int rec, inp_kw *kw);
/* Next data line of the current keyword: tokens split at commas and trimmed; returns 1 and
 * advances, or 0 at the next keyword or the end. Trailing empty tokens are dropped; a line of
 * more than INP_MAX_TOKENS fields keeps the rest, commas included, in the last token. */
INP_INTERN int inp_data(inp *p, int *rec, char **tok, int *n);
/* Parameter lookup (marks it used); NULL if absent. */
INP_INTERN const char *inp_param(inp_kw *kw, const char *key);
/* Every parameter must have been read: otherwise "unsupported parameter X on *KW". */
INP_INTERN dt_status inp_params_done(inp *p, const inp_kw *kw);
/* Numbers: the whole token must parse. */
INP_INTERN dt_status inp_double(inp *p, int rec, const char *tok, const char *what, double *out);
INP_INTERN dt_status inp_int64(inp *p, int rec, const char *tok, const char *what, int64_t *out);
INP_INTERN int inp_is_int(const char *tok);
/* Case-insensitive equality. */
INP_INTERN int inp_eq(const char *a, const char *b);
/* A keyword name as read ("*ENDSTEP", "*END  STEP") is `canonical` ("*END STEP"): blanks do not
 * count, as CalculiX drops them. */
INP_INTERN int inp_kw_is(const char *name, const char *canonical);

/* Mesh (import_inp_mesh.c). */
INP_INTERN dt_status inp_node(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_element(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_nset(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_elset(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_surface(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_node_index(inp *p, int rec, int64_t id, int *out);
INP_INTERN dt_status inp_elem_index(inp *p, int rec, int64_t id, int *out);
/* Node set / element set by name, created empty if `create`; *out -1 if absent. */
INP_INTERN dt_status inp_get_nset(inp *p, int rec, const char *name, int create, int *out);
INP_INTERN dt_status inp_get_elset(inp *p, int rec, const char *name, int create, int *out);
/* A new node set, without looking for one of that name (the caller knows there is none). */
INP_INTERN dt_status inp_new_nset(inp *p, int rec, const char *name, int *out);
/* Node set for a data-line target: a set name, or a node id (a one-node set "_N<id>"). */
INP_INTERN dt_status inp_target_nset(inp *p, int rec, const char *tok, int *out);
/* Element set for a target: an element set name or an element id. */
INP_INTERN dt_status inp_target_elset(inp *p, int rec, const char *tok, int *out);
/* Surface by name, created empty if `create`. */
INP_INTERN dt_status inp_get_surface(inp *p, int rec, const char *name, int create, int *out);
/* Room for one more node at index m->n_nodes (node_id, x and node_rec grown together), its id
 * 0, its coordinates 0 and its record rec; the caller sets the id and counts it in n_nodes. */
INP_INTERN dt_status inp_node_slot(inp *p, int rec);
INP_INTERN dt_status inp_surface_add_faces(inp *p, int rec, int surface, int elset, int face);
/* The model type of an *ELEMENT TYPE= name (any case), -1 for one the importer does not take
 * (also for the size scanner, size_scan_inp.c). */
INP_INTERN int inp_elem_type(const char *name);

/* Materials and sections (import_inp_material.c). */
INP_INTERN dt_status inp_material(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_elastic(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_plastic(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_cyclic(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_density(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_solid_section(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_shell_section(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_materials_done(inp *p);
/* *CHANGE SOLID SECTION in a step: a dt_material_change of the open step. */
INP_INTERN dt_status inp_change_solid_section(inp *p, inp_kw *kw);
/* Every section's material by name, at each *STEP and at the end of the deck: CalculiX reads
 * the whole deck first, so a *SOLID SECTION may name a material defined after it. */
INP_INTERN dt_status inp_sections_done(inp *p);

/* Steps, loads and output requests (import_inp_step.c). */
INP_INTERN dt_status inp_boundary(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_step(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_static(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_cload_kw(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_dload(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_end_step(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_controls(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_print(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_prints_done(inp *p); /* after dt_model_finish: sections are resolved */
/* *NODE FILE, *EL FILE and Abaqus's *NODE OUTPUT, *ELEMENT OUTPUT (the same requests). */
INP_INTERN dt_status inp_file_request(inp *p, inp_kw *kw);
/* *OUTPUT, FIELD: how often the requests after it write (explicit steps: NUMBER INTERVAL=, TIME
 * INTERVAL=, FREQUENCY=). */
INP_INTERN dt_status inp_output(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_dsload(inp *p, inp_kw *kw);
INP_INTERN void inp_state_free(inp *p);
/* The shell elements of element set `elset` are all shells (side = 1: a face SPOS or SNEG) or
 * none is (side = 0: a face S<n>, P<n>); `what` names the label for the message. */
INP_INTERN dt_status inp_check_shell_faces(inp *p, int rec, int elset, int side, const char *what);

/* Explicit dynamics (import_inp_explicit.c): *DYNAMIC, EXPLICIT, *AMPLITUDE, *INITIAL
 * CONDITIONS, TYPE=VELOCITY, and the checks that keep static and explicit steps, shells and
 * solids apart with a line. */
INP_INTERN dt_status inp_dynamic(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_amplitude(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_initial_conditions(inp *p, inp_kw *kw);
/* TYPE=STRESS and TYPE=PLASTIC STRAIN (import_inp_initial.c): the dt_initial_kind of a TYPE
 * value (-1: neither), and the keyword's data lines as the model's initial states. */
INP_INTERN int inp_initial_state_type(const char *type);
INP_INTERN dt_status inp_initial_states(inp *p, inp_kw *kw, int kind);
/* *STATIC's side of the checks: no explicit step before it, no shell elements. */
INP_INTERN dt_status inp_static_allowed(inp *p, const inp_kw *kw);
/* The AMPLITUDE= of a load or boundary keyword in a step (none: nothing to do): only explicit
 * steps take one, and one per step. After its data lines, inp_amplitude_default: a keyword that
 * gave nonzero values without AMPLITUDE= has them follow the step's default amplitude, which
 * must then be the step's only one. */
INP_INTERN dt_status inp_amplitude_use(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_amplitude_default(inp *p, inp_kw *kw, int nonzero);
/* At *END STEP: the explicit step's amplitude; at the end of the deck: what needs a step. */
INP_INTERN dt_status inp_explicit_step_end(inp *p, int rec, dt_step *st);
INP_INTERN dt_status inp_explicit_done(inp *p);
/* The model's initial velocities from the *INITIAL CONDITIONS lines, once the sets are final
 * (sorted): one node set per distinct velocity (a line overrides earlier ones at the nodes and
 * DOF it names), the deck's own set where one holds exactly those nodes. */
INP_INTERN dt_status inp_initial_velocities(inp *p);

/* *EQUATION (import_inp_equation.c), and the model's rules for equations once the deck is read,
 * an error naming the equation's line. */
INP_INTERN dt_status inp_rigid_body(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_mpc(inp *p, inp_kw *kw);
/* Lower the *RIGID BODY and *MPC definitions into equations (the steps are read by then). */
INP_INTERN dt_status inp_mpcs_done(inp *p);
/* Nodes that no element uses (dt_model_check_isolated's rules), checked after the transforms
 * and ties are lowered, an error at the line of the constraint or the *NODE that names them. */
INP_INTERN dt_status inp_isolated_nodes_check(inp *p);
INP_INTERN void inp_mpcs_free(inp *p);
INP_INTERN dt_status inp_equation(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_equations_done(inp *p);

/* *SUBMODEL and *BOUNDARY, SUBMODEL (import_inp_submodel.c): a line "node set, first DOF[, last
 * DOF]" prescribes the global model's step `step` displacements, interpolated at each node. */
INP_INTERN dt_status inp_submodel(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_submodel_boundary_line(inp *p, int rec, char **tok, int n, int step);
INP_INTERN void inp_submodels_free(inp *p);

/* *TRANSFORM (import_inp_transform.c), and the model rewritten in global DOFs once the deck is
 * read (dt_model_lower_transforms), an error naming the first *TRANSFORM's line. */
INP_INTERN dt_status inp_transform(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_transforms_done(inp *p);

/* *TIE and node surfaces (import_inp_tie.c): *SURFACE, TYPE=NODE keeps its nodes as the node set
 * "_NS_<name>"; the ties are lowered into equations once the deck is read (after the
 * transforms: dt_model_lower_ties), an error naming the tie's line. */
INP_INTERN dt_status inp_node_surface(inp *p, inp_kw *kw, const char *name);
INP_INTERN dt_status inp_tie(inp *p, inp_kw *kw);
INP_INTERN dt_status inp_ties_done(inp *p);

#endif
