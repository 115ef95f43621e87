/* The backend registry (backend/backend.c, backends.def): the names come from backends.def,
 * every listed backend is found by name or refused with a reason, and an ops table whose name
 * backends.def does not list fails the registration check. */
#include <string.h>

#include "backend/backend.h"
#include "unit_model.h"

int main(void) {
  int n = 0;
  for (; dt_backend_names[n]; n++) {
    const dt_backend_ops *o = NULL;
    char note[256] = "";
    dt_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    dt_status rc = dt_backend_find(dt_backend_names[n], &o, note, sizeof note, &ctx);
    /* Found (then with its own name), or refused with a message that names it. */
    if (rc == DT_OK)
      CHECK(o != NULL && strcmp(o->name, dt_backend_names[n]) == 0, "'%s' found as '%s'",
            dt_backend_names[n], o ? o->name : "(null)");
    else
      CHECK(strstr(ctx.msg, dt_backend_names[n]) != NULL, "refusal of '%s' does not name it: %s",
            dt_backend_names[n], ctx.msg);
    CHECK(dt_backend_known(dt_backend_names[n]), "'%s' not known", dt_backend_names[n]);
  }
  CHECK(n == 2, "backends.def lists %d backends, expected cuda and cpu", n);
  CHECK(!dt_backend_known("gpu") && !dt_backend_known("auto") && !dt_backend_known(NULL),
        "unlisted names must not be known");

  /* The CPU backend's table, renamed, fails the registration check with the name. */
  const dt_backend_ops *cpu = NULL;
  dt_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  CHECK(dt_backend_find("cpu", &cpu, NULL, 0, &ctx) == DT_OK, "cpu: %s", ctx.msg);
  dt_backend_ops renamed = *cpu;
  renamed.name = "opencl";
  memset(&ctx, 0, sizeof ctx);
  CHECK(dt_backend_validate(&renamed, &ctx) == DT_ERR_INTERNAL && strstr(ctx.msg, "opencl"),
        "an unlisted backend passed the registration check: %s", ctx.msg);
  printf("backends: %d listed, names from backends.def\n", n);
  return 0;
}
