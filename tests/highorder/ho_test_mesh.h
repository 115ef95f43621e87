/* Mesh helpers the order-P tests share: a smooth curving map and a right-handed renumbering
 * of hex8 corners, so meshes carry curved geometry and elements in every local orientation. */
#ifndef DT_HO_TEST_MESH_H
#define DT_HO_TEST_MESH_H

#include <math.h>
#include <string.h>
#include <time.h>

#include "../test_expect.h"

/* Monotonic seconds, for the tests' timing lines. */
static inline double ho_test_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* A reproducible pseudo-random number in [0, 1) from the state *s (a linear congruence). */
static inline double ho_test_rnd(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return ((*s >> 8) & 0xffffff) / (double)0x1000000;
}

/* Moves the interior of the unit cube by a sine bump of amplitude 0.05 along (1, 1, 1); the
 * boundary stays (a dt_ho_mesh curving map). */
static inline void ho_test_curve(const double x[3], double y[3], void *user) {
  (void)user;
  double s = 0.05 * sin(M_PI * x[0]) * sin(M_PI * x[1]) * sin(M_PI * x[2]);
  for (int d = 0; d < 3; d++) y[d] = x[d] + s;
}

/* Renumbers a hex8 by the rotation taking +x to +y (k = 1) or +z (k = 2), or by a half turn
 * about z (k = 3): new local corner j is the old corner at R c_j, which keeps the element
 * right-handed. */
static inline void ho_test_rotate_hex(int *conn, int k) {
  static const int corner[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                   {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
  int R[3][3] = {{0}}, out[8] = {0};
  for (int i = 0; i < 3; i++) R[i][(i + k) % 3] = 1; /* cyclic axis permutation */
  for (int j = 0; j < 8; j++) {
    int c[3];
    for (int i = 0; i < 3; i++)
      c[i] = R[i][0] * corner[j][0] + R[i][1] * corner[j][1] + R[i][2] * corner[j][2];
    if (k == 3) c[0] = -c[0], c[1] = -c[1];
    for (int l = 0; l < 8; l++)
      if (corner[l][0] == c[0] && corner[l][1] == c[1] && corner[l][2] == c[2]) out[j] = conn[l];
  }
  memcpy(conn, out, sizeof(out));
}

#endif
