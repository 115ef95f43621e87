/* The .frd's fixed-width fields without printf (private to solver/io; tests/io/test_io_frd_format.c
 * checks them against snprintf): CalculiX's E12.5 ("%12.5E") and its integers ("%10lld", "%5d"). A block of a
 * million nodes holds millions of values, and snprintf's conversion costs about ten times
 * these.
 *
 * E12.5: the six significant digits are the value scaled by 10^(5 - e), rounded. The scaling
 * multiplies by two correctly rounded powers of ten (10^(16 q - 96) and 10^r, r < 16), which
 * errs by less than 1e-9 on a scaled value below 10^6; that changes the rounding only within
 * 1e-9 of a tie (x.5), so within 1e-6 of one snprintf decides, with C's exact rounding (ties
 * to even on the binary value). Outside what 12 characters hold, the writer's old rules stay:
 * below 1e-99 (and NaN, and -0) the field is " 0.00000E+00", and from what rounds to 1e100 on
 * (and infinities) +-9.99999E+99 (no displacement, stress or strain of a converged increment
 * comes near either). */
#ifndef DT_IO_OUTPUT_FRD_FORMAT_H
#define DT_IO_OUTPUT_FRD_FORMAT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* "00" .. "99": two digits at a time */
static const char dt_frd_digit_pairs[201] = "00010203040506070809101112131415161718192021222324"
                                            "25262728293031323334353637383940414243444546474849"
                                            "50515253545556575859606162636465666768697071727374"
                                            "75767778798081828384858687888990919293949596979899";

/* a * 10^k for -96 <= k < 112: a times 10^(16 q - 96) times 10^r, both correctly rounded
 * (10^r exactly), two roundings of the product. */
static inline double dt_frd_scale10(double a, int k) {
  static const double hi[13] = {1e-96, 1e-80, 1e-64, 1e-48, 1e-32, 1e-16, 1e0,
                                1e16,  1e32,  1e48,  1e64,  1e80,  1e96};
  static const double lo[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  return a * hi[(k + 96) >> 4] * lo[(k + 96) & 15];
}

/* floor(log10(a)) or one less, for a normal a > 0: from its binary exponent
 * (78913 / 2^18 just below log10(2)). */
static inline int dt_frd_exp10_guess(double a) {
  uint64_t bits;
  memcpy(&bits, &a, sizeof bits);
  return (((int)((bits >> 52) & 0x7ff) - 1023) * 78913) >> 18;
}

static inline void dt_frd_put_pair(char *p, unsigned two_digits) {
  memcpy(p, dt_frd_digit_pairs + 2 * two_digits, 2);
}

/* "%12.5E" of v into p[0..11] (no terminator), with the rules above. */
static inline void dt_frd_put_e12(char *p, double v) {
  double a = fabs(v), s, f;
  int e;
  unsigned r;
  if (!(a >= 1e-99)) { /* also NaN and -0 */
    memcpy(p, " 0.00000E+00", 12);
    return;
  }
  if (a < 1e100) {
    e = dt_frd_exp10_guess(a); /* s = a 10^(5 - e) in [10^5, 10^6) once e is right */
    s = dt_frd_scale10(a, 5 - e);
    while (s >= 1e6) s = dt_frd_scale10(a, 5 - ++e);
    while (s < 1e5) s = dt_frd_scale10(a, 5 - --e);
    r = (unsigned)s;
    f = s - r;
    if (fabs(f - 0.5) < 1e-6) { /* a tie, or nearly: C's exact rounding */
      char t[32];
      if (snprintf(t, sizeof t, "%12.5E", v) == 12 && (t[0] == ' ' || t[0] == '-')) {
        memcpy(p, t, 12);
        return;
      }
      e = 100; /* 1.00000E+100, which has no room for the sign */
    }
    r += f > 0.5;
    if (r == 1000000) r = 100000, e++; /* 9.999995 and up: 1.00000 */
  } else {
    e = 100;
  }
  if (e > 99) {
    memcpy(p, v < 0 ? "-9.99999E+99" : " 9.99999E+99", 12);
    return;
  }
  p[0] = " -"[v < 0];
  dt_frd_put_pair(p + 1, r / 10000); /* r = d.ddddd x 10^5: "dd", then the point */
  p[3] = p[2];
  p[2] = '.';
  r %= 10000;
  dt_frd_put_pair(p + 4, r / 100);
  dt_frd_put_pair(p + 6, r % 100);
  p[8] = 'E';
  p[9] = "+-"[e < 0];
  dt_frd_put_pair(p + 10, (unsigned)(e < 0 ? -e : e));
}

/* "%*lld" of v (width w) at p, no terminator: right-aligned, wider when it needs more; returns
 * the characters written. */
static inline int dt_frd_put_int(char *p, long long v, int w) {
  char d[24], *q = d + sizeof d;
  unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
  int n, pad;
  for (; u >= 100; u /= 100) dt_frd_put_pair(q -= 2, (unsigned)(u % 100));
  if (u >= 10)
    dt_frd_put_pair(q -= 2, (unsigned)u);
  else
    *--q = (char)('0' + u);
  if (v < 0) *--q = '-';
  n = (int)(d + sizeof d - q);
  pad = w > n ? w - n : 0;
  memset(p, ' ', (size_t)pad);
  memcpy(p + pad, q, (size_t)n);
  return pad + n;
}

#endif
