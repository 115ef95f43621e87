/* A library that starts threads as it loads, before the program's main, with no signal blocked,
 * as OpenBLAS's pthread build starts its pool: test_foreign_threads.py preloads it into
 * ductiled (LD_PRELOAD). The threads only wait. */
#include <pthread.h>
#include <unistd.h>

static void *wait_forever(void *arg) {
  (void)arg;
  for (;;) pause(); /* a handled signal returns from pause: wait again */
  return NULL;
}

__attribute__((constructor)) static void start_threads(void) {
  for (int i = 0; i < 4; i++) {
    pthread_t t;
    if (pthread_create(&t, NULL, wait_forever, NULL) == 0) pthread_detach(t);
  }
}
