/* The .frd's fixed-width fields (solver/io/output_frd_format.h) against the C library, byte for
 * byte:
 *   E12.5   dt_frd_put_e12 is snprintf's "%12.5E" wherever that fits 12 characters, " 0.00000E+00"
 *           below 1e-99 (denormals, -0 and NaN too) and +-9.99999E+99 from what rounds to 1e100 on
 *           (infinities too). Values: random magnitudes over the whole double range, random bit
 *           patterns, the decimal ties d.ddddd5 x 10^e of every exponent and the doubles around
 *           them, dyadic ties (79/64 = 1.234375), integers, and the edges of the field
 *           (1e-99, 9.999995e99, 1e100);
 *   E13.6   dt_frd_put_e13 is snprintf's "%13.6E" everywhere (results.dat), the same values;
 *   integer dt_frd_put_int is "%*lld" for widths 5 and 10, also where the value needs more.
 * It prints each one's cost next to snprintf's. Usage: test_io_frd_format. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "io/output_frd_format.h"

static long n_checked, n_failed;

/* xorshift64*: the same values on every run */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}
static double uniform(void) { return (double)(rng() >> 11) / 9007199254740992.0; } /* [0, 1) */

/* What the field must hold: "%12.5E", or the rules for what does not fit. */
static void expected_e12(char *out, double v) {
  char t[64];
  int n;
  if (!(fabs(v) >= 1e-99)) {
    memcpy(out, " 0.00000E+00", 12);
    return;
  }
  n = snprintf(t, sizeof t, "%12.5E", v);
  if (isinf(v) || n != 12 || strlen(strchr(t, 'E')) != 4) /* E+ddd: no room for the sign */
    memcpy(out, v < 0 ? "-9.99999E+99" : " 9.99999E+99", 12);
  else
    memcpy(out, t, 12);
}

/* E13.6 is snprintf's everywhere: checked with every E12.5 value. */
static void check_e13(double v) {
  char got[32], want[32];
  const int n = snprintf(want, sizeof want, "%13.6E", v), k = dt_frd_put_e13(got, v);
  n_checked++;
  if ((k != n || memcmp(got, want, (size_t)n) != 0) && n_failed++ < 20)
    fprintf(stderr, "E13.6 of %.17g (%a): '%.*s', want '%s'\n", v, v, k, got, want);
}

static void check_e12(double v) {
  char got[13], want[13];
  got[12] = want[12] = '\0';
  dt_frd_put_e12(got, v);
  expected_e12(want, v);
  n_checked++;
  if (memcmp(got, want, 12) != 0 && n_failed++ < 20)
    fprintf(stderr, "E12.5 of %.17g (%a): '%s', want '%s'\n", v, v, got, want);
  check_e13(v);
}

/* v and the doubles up to k steps either side */
static void check_around(double v, int k) {
  double lo = v, hi = v;
  check_e12(v);
  for (int i = 0; i < k; i++) {
    lo = nextafter(lo, -INFINITY);
    hi = nextafter(hi, INFINITY);
    check_e12(lo);
    check_e12(hi);
  }
}

static void check_int(long long v, int w) {
  char got[64], want[64];
  int n = snprintf(want, sizeof want, "%*lld", w, v), k = dt_frd_put_int(got, v, w);
  n_checked++;
  if ((k != n || memcmp(got, want, (size_t)n) != 0) && n_failed++ < 20)
    fprintf(stderr, "%%%dlld of %lld: '%.*s', want '%s'\n", w, v, k, got, want);
}

static void test_random(void) {
  for (int i = 0; i < 200000; i++) { /* mostly inside the field's exponents, some far outside */
    const int e = i % 4 ? (int)(rng() % 199) - 99 : (int)(rng() % 617) - 308;
    const double v = (1.0 + 9.0 * uniform()) * pow(10.0, e);
    check_e12(rng() & 1 ? -v : v);
  }
  for (int i = 0; i < 50000; i++) { /* any bit pattern: denormals, NaNs, infinities */
    const uint64_t u = rng();
    double v;
    memcpy(&v, &u, sizeof v);
    check_e12(v);
  }
}

static void test_ties(void) {
  /* d.ddddd5 x 10^e, which the nearest double misses by a little either way: C rounds the
   * binary value exactly; and the same with 9.99999|5, where the exponent goes up */
  for (int e = -99; e <= 99; e++) {
    for (int i = 0; i < 40; i++) {
      const double m = (double)(100000 + rng() % 900000) + 0.5;
      check_around(m * pow(10.0, e - 5), 3);
    }
    check_around(9.999995 * pow(10.0, e), 3);
    check_around(pow(10.0, e), 3);
  }
  /* ties a double holds exactly: integers ending in 5 past six digits, dyadic fractions */
  for (int i = 0; i < 20000; i++) {
    const double k = (double)(1000000 + rng() % 9000000) * 10.0 + 5.0;
    check_e12(k);
    check_e12(ldexp((double)(rng() % 10000000), -(int)(rng() % 30)));
  }
  check_e12(1.234375); /* 79/64: 1.23438 (ties to even upward) */
  check_e12(1.234365); /* just off the tie */
  check_e12(999999.5); /* 1.00000E+06 */
  check_e12(999998.5); /* 9.99998E+05 (even) */
  check_e12(9.999995e5);
  check_e12(-9.999995e5);
  /* E13.6's own ties: d.dddddd5 x 10^e, and 9.9999995 where the exponent goes up */
  for (int e = -99; e <= 99; e++) {
    for (int i = 0; i < 40; i++) {
      const double m = (double)(1000000 + rng() % 9000000) + 0.5;
      const double v = m * pow(10.0, e - 6);
      double lo = v, hi = v;
      check_e13(v);
      for (int k = 0; k < 3; k++) {
        lo = nextafter(lo, -INFINITY), hi = nextafter(hi, INFINITY);
        check_e13(lo), check_e13(hi);
      }
    }
    check_e13(9.9999995 * pow(10.0, e));
    check_e13(-9.9999995 * pow(10.0, e));
  }
  check_e13(1.2343755); /* just off a tie */
  check_e13(9999999.5);
  check_e13(9999998.5);
}

static void test_edges(void) {
  static const double special[] = {0.0,    -0.0,    DBL_MIN,  -DBL_MIN, DBL_TRUE_MIN, 4.9e-300,
                                   1e-100, DBL_MAX, -DBL_MAX, INFINITY, -INFINITY,    NAN,
                                   -NAN,   1.0,     -1.0,     0.1,      1e-5,         123456.5,
                                   1e22,   1e23,    5e-324};
  for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) check_e12(special[i]);
  check_around(1e-99, 50);
  check_around(-1e-99, 50);
  check_around(1e100, 50);
  check_around(9.999995e99, 50);
  check_around(-9.999995e99, 50);
  check_around(9.99999e99, 5);
  for (int i = 0; i <= 100000; i++) check_e12(i); /* integers */
  for (int e = -99; e <= 99; e++) check_around(pow(10.0, e), 2);
}

static void test_ints(void) {
  static const long long special[] = {
      0,           1,         -1,       9,         10,         -9,           99999,
      -9999,       100000,    -99999,   999999999, -999999999, 9999999999LL, 10000000000LL,
      -1000000000, INT64_MAX, INT64_MIN};
  for (size_t i = 0; i < sizeof special / sizeof special[0]; i++) {
    check_int(special[i], 5);
    check_int(special[i], 10);
  }
  for (int i = 0; i < 100000; i++) {
    const long long v = (long long)(rng() >> (rng() % 64));
    check_int(rng() & 1 ? -v : v, i % 2 ? 10 : 5);
  }
}

/* Cost per value of each, on values of a stress block's size range (not checked: noise). */
static void report_speed(void) {
  enum { N = 1 << 16 };
  static double v[N];
  static char buf[12 * N + 32];
  double t0, t1, t2;
  for (int i = 0; i < N; i++) v[i] = 300.0 * sin(0.37 * i) + 1e-3 * (i % 7);
  t0 = dt_seconds();
  for (int i = 0; i < N; i++) dt_frd_put_e12(buf + 12 * i, v[i]);
  t1 = dt_seconds();
  for (int i = 0; i < N; i++) snprintf(buf + 12 * i, 32, "%12.5E", v[i]);
  t2 = dt_seconds();
  printf("E12.5: %.1f ns a value, snprintf %.1f ns\n", 1e9 * (t1 - t0) / N, 1e9 * (t2 - t1) / N);
  t0 = dt_seconds();
  for (int i = 0; i < N; i++) dt_frd_put_e13(buf + 12 * i, v[i]); /* overlapping: speed only */
  t1 = dt_seconds();
  for (int i = 0; i < N; i++) snprintf(buf + 12 * i, 32, "%13.6E", v[i]);
  t2 = dt_seconds();
  printf("E13.6: %.1f ns a value, snprintf %.1f ns\n", 1e9 * (t1 - t0) / N, 1e9 * (t2 - t1) / N);
}

int main(void) {
  test_random();
  test_ties();
  test_edges();
  test_ints();
  report_speed();
  printf("%ld fields checked against snprintf, %ld differ\n", n_checked, n_failed);
  return n_failed == 0 ? 0 : 1;
}
