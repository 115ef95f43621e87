/* ductile-partition: how a model would be split for a run on several GPUs.
 *
 *   ductile-partition MODEL NPARTS [--weights seed|shared|unit] [--elem-weights points|none]
 *                     [--adjacency faces|nodes] [--no-contig] [--no-minconn] [--ufactor N]
 *                     [--clusters auto|off|N] [--job LOADS.json]
 *
 * MODEL is a JSON job, an Abaqus/CalculiX deck or a Gmsh mesh (the mesh alone, or completed
 * by --job). Parts balance quadrature points unless --elem-weights none. Prints per part its
 * elements, owned and ghost nodes, neighbours and exchanged values, then the edge cut,
 * interface nodes and imbalance (docs/multi-gpu.md).
 * Exit codes: 0 success; 1 invalid input; 3 resources, a build without METIS or internal
 * errors; 64 bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ductile.h"

enum { EXIT_INPUT = 1, EXIT_FAILURE_OTHER = 3, EXIT_USAGE = 64 };

static void usage(FILE *f) {
  fprintf(f,
          "usage: ductile-partition MODEL NPARTS [--weights seed|shared|unit]\n"
          "                         [--elem-weights points|none] [--no-contig] [--no-minconn]\n"
          "                         [--adjacency faces|nodes] [--ufactor N]\n"
          "                         [--clusters auto|off|N] [--job LOADS.json]\n"
          "  MODEL       a JSON job, an Abaqus/CalculiX deck (.inp) or a Gmsh mesh (.msh)\n"
          "  --weights   dual-graph edge weights by shared nodes: seed ([0,4,3,2,1], the\n"
          "              default), shared (the count) or unit\n"
          "  --elem-weights\n"
          "              balance quadrature points per part (points, the default) or\n"
          "              elements (none)\n"
          "  --adjacency the element pairs the dual graph joins: those sharing a face (faces,\n"
          "              the default) or any node (nodes)\n"
          "  --no-contig do not ask METIS for contiguous parts\n"
          "  --no-minconn do not minimise the number of neighbours\n"
          "  --ufactor N allowed imbalance in 1/1000 (default 30: 3 %%)\n"
          "  --clusters  partition N clusters of elements (runs along a Hilbert curve)\n"
          "              instead of the elements: auto (the default) does it with %d\n"
          "              clusters above %d elements; off never\n",
          DT_PARTITION_CLUSTERS, DT_PARTITION_CLUSTER_ABOVE);
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && !strcmp(s + n - k, suffix);
}

static int parse_weights(const char *s, dt_partition_weights *w) {
  if (!strcmp(s, "seed"))
    *w = DT_PARTITION_WEIGHTS_SEED;
  else if (!strcmp(s, "shared"))
    *w = DT_PARTITION_WEIGHTS_SHARED;
  else if (!strcmp(s, "unit"))
    *w = DT_PARTITION_WEIGHTS_UNIT;
  else
    return 0;
  return 1;
}

static int exit_code(dt_status rc) {
  return rc == DT_ERR_INPUT || rc == DT_ERR_IO ? EXIT_INPUT : EXIT_FAILURE_OTHER;
}

int main(int argc, char **argv) {
  dt_ctx ctx = {0};
  dt_status rc = DT_OK;
  dt_partition_options o;
  dt_partition_report rep = {0};
  dt_model *m = NULL;
  dt_part_local *parts = NULL;
  int *part = NULL, *weight = NULL, nparts = 0, code = 0, points = 1;
  const char *model = NULL, *job = NULL;
  dt_partition_options_default(&o);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has_value = i + 1 < argc;
    if (!strcmp(a, "--weights") && has_value) {
      if (!parse_weights(argv[++i], &o.weights)) {
        fprintf(stderr, "ductile-partition: --weights %s: expected seed, shared or unit\n",
                argv[i]);
        return EXIT_USAGE;
      }
    } else if (!strcmp(a, "--elem-weights") && has_value) {
      const char *v = argv[++i];
      if (strcmp(v, "points") && strcmp(v, "none")) {
        fprintf(stderr, "ductile-partition: --elem-weights %s: expected points or none\n", v);
        return EXIT_USAGE;
      }
      points = !strcmp(v, "points");
    } else if (!strcmp(a, "--adjacency") && has_value) {
      const char *v = argv[++i];
      if (strcmp(v, "faces") && strcmp(v, "nodes")) {
        fprintf(stderr, "ductile-partition: --adjacency %s: expected faces or nodes\n", v);
        return EXIT_USAGE;
      }
      o.adjacency = !strcmp(v, "faces") ? DT_PARTITION_ADJ_FACES : DT_PARTITION_ADJ_NODES;
    } else if (!strcmp(a, "--no-contig"))
      o.contig = 0;
    else if (!strcmp(a, "--no-minconn"))
      o.minconn = 0;
    else if (!strcmp(a, "--ufactor") && has_value)
      o.ufactor = atoi(argv[++i]);
    else if (!strcmp(a, "--clusters") && has_value) {
      const char *v = argv[++i];
      char *end = NULL;
      long n = strtol(v, &end, 10);
      if (!strcmp(v, "auto") || !strcmp(v, "off"))
        o.clusters = !strcmp(v, "auto") ? -1 : 0;
      else if (*end == '\0' && n >= 1 && n <= 1000000000)
        o.clusters = (int)n;
      else {
        fprintf(stderr, "ductile-partition: --clusters %s: expected auto, off or a count\n", v);
        return EXIT_USAGE;
      }
    } else if (!strcmp(a, "--job") && has_value)
      job = argv[++i];
    else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (a[0] != '-' && !model)
      model = a;
    else if (a[0] != '-' && !nparts)
      nparts = atoi(a);
    else {
      usage(stderr);
      return EXIT_USAGE;
    }
  }
  if (!model || nparts < 1) {
    usage(stderr);
    return EXIT_USAGE;
  }
  if (ends_with(model, ".msh") && !job)
    rc = dt_gmsh_read_file(model, NULL, &m, &ctx);
  else
    rc = dt_import_file(model, job, NULL, &m, &ctx);
  if (rc == DT_OK) {
    part = calloc((size_t)m->n_elems + 1, sizeof *part);
    weight = calloc((size_t)m->n_elems + 1, sizeof *weight);
    if (!part || !weight) rc = DT_ERROR(&ctx, DT_ERR_NOMEM, "out of memory for the part map");
  }
  if (rc == DT_OK && points) rc = dt_partition_elem_points(m, weight, &ctx);
  if (rc == DT_OK && points) o.elem_weight = weight;
  if (rc == DT_OK) rc = dt_partition_elements(m, nparts, &o, part, &rep, &ctx);
  if (rc == DT_OK) parts = calloc((size_t)nparts, sizeof *parts);
  if (rc == DT_OK && !parts) rc = DT_ERROR(&ctx, DT_ERR_NOMEM, "out of memory for the parts");
  if (rc == DT_OK) rc = dt_part_local_build(m, nparts, part, parts, &ctx);
  if (rc == DT_OK) {
    printf("%s: %d elements, %d nodes\n", model, m->n_elems, m->n_nodes);
    dt_partition_view(&rep, parts, stdout);
  } else {
    fprintf(stderr, "ductile-partition: %s: %s\n", dt_status_name(rc), ctx.msg);
    code = exit_code(rc);
  }
  for (int p = 0; parts && p < nparts; p++) dt_part_local_free(&parts[p]);
  free(parts);
  free(part);
  free(weight);
  dt_partition_report_free(&rep);
  dt_model_destroy(&m);
  return code;
}
