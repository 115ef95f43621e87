/* The backend registry: lookup by name, "auto" selection, and the registration check. */
#include "backend.h"

#include <string.h>

extern const dt_backend_ops dt_cpu_ops;

#ifdef DUCTILE_HAVE_CUDA
extern const dt_backend_ops dt_cuda_ops;
#else
/* Stub when CUDA is not compiled: listed, never available, with a clear reason. */
static int cuda_not_built(char *why, size_t len) {
  snprintf(why, len, "the CUDA backend is not compiled in this build (configure with CUDA)");
  return 0;
}
static const dt_backend_ops dt_cuda_ops = {.name = "cuda", .available = cuda_not_built};
#endif

static const dt_backend_ops *const registry[] = {
#define DT_BACKEND(id, name) &dt_##id##_ops,
#include "backends.def"
#undef DT_BACKEND
};
enum { N_BACKENDS = sizeof registry / sizeof registry[0] };

const char *const dt_backend_names[] = {
#define DT_BACKEND(id, name) name,
#include "backends.def"
#undef DT_BACKEND
    NULL};

int dt_backend_known(const char *name) {
  for (int i = 0; name && dt_backend_names[i]; i++)
    if (strcmp(name, dt_backend_names[i]) == 0) return 1;
  return 0;
}

dt_status dt_backend_validate(const dt_backend_ops *o, dt_ctx *ctx) {
  dt_status rc = DT_OK;
#define REQUIRE(op)                                                                                \
  DT_CHECK(o->op != NULL, ctx, DT_ERR_INTERNAL, "backend %s has no method " #op, o->name)
  REQUIRE(problem_upload);
  REQUIRE(destroy);
  REQUIRE(vec_set);
  REQUIRE(vec_get);
  REQUIRE(vec_lincomb);
  REQUIRE(vec_mul);
  REQUIRE(vec_dot);
  REQUIRE(stress_update);
  REQUIRE(tangent_assemble);
  REQUIRE(operator_apply);
  REQUIRE(pc_setup);
  REQUIRE(pc_apply);
  REQUIRE(state_commit);
  REQUIRE(state_rollback);
  REQUIRE(fields_download);
#undef REQUIRE
  DT_CHECK(o->name != NULL && dt_backend_known(o->name), ctx, DT_ERR_INTERNAL,
           "backend '%s' is not listed in backends.def", o->name ? o->name : "(unnamed)");
cleanup:
  return rc;
}

static int is_available(const dt_backend_ops *o, char *why, size_t len) {
  if (why && len) why[0] = '\0';
  return o->available == NULL || o->available(why, len);
}

dt_status dt_backend_find(const char *name, const dt_backend_ops **out, char *note, size_t note_len,
                          dt_ctx *ctx) {
  dt_status rc = DT_OK;
  char why[256] = "", skipped[512] = "";
  *out = NULL;
  if (name == NULL || strcmp(name, "auto") == 0) {
    for (int i = 0; i < N_BACKENDS; i++) {
      if (is_available(registry[i], why, sizeof why)) {
        *out = registry[i];
        snprintf(note, note_len, "backend auto: using %s%s%s", registry[i]->name,
                 skipped[0] ? " (" : "", skipped[0] ? skipped : "");
        if (skipped[0]) strncat(note, ")", note_len - strlen(note) - 1);
        break;
      }
      snprintf(skipped + strlen(skipped), sizeof skipped - strlen(skipped), "%s%s: %s",
               skipped[0] ? "; " : "", registry[i]->name, why);
    }
    DT_CHECK(*out != NULL, ctx, DT_ERR_UNSUPPORTED, "no backend is available: %s", skipped);
  } else {
    for (int i = 0; i < N_BACKENDS; i++)
      if (strcmp(registry[i]->name, name) == 0) *out = registry[i];
    DT_CHECK(*out != NULL, ctx, DT_ERR_INPUT, "unknown backend \"%s\" (choose cpu, cuda or auto)",
             name);
    DT_CHECK(is_available(*out, why, sizeof why), ctx, DT_ERR_UNSUPPORTED, "backend %s: %s", name,
             why);
    snprintf(note, note_len, "backend %s", name);
  }
  DT_TRY(dt_backend_validate(*out, ctx));
cleanup:
  if (rc != DT_OK) *out = NULL;
  return rc;
}

int dt_backend_device_lost(const char *name, int ordinal, char *why, size_t len) {
  const dt_backend_ops *o = NULL;
  char note[256];
  dt_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  if (dt_backend_find(name, &o, note, sizeof note, &ctx) != DT_OK || !o->device_lost) return 0;
  return o->device_lost(ordinal, why, len);
}

dt_status dt_backend_devices(const char *name, dt_device_info *out, int max, int *n, dt_ctx *ctx) {
  dt_status rc = DT_OK;
  const dt_backend_ops *o = NULL;
  char note[256];
  *n = 0;
  DT_TRY(dt_backend_find(name, &o, note, sizeof note, ctx));
  while (o->device_info && *n < max && o->device_info(*n, &out[*n])) (*n)++;
cleanup:
  return rc;
}
