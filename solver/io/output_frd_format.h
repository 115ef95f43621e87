/* The .frd's fixed-width fields without printf (private to solver/io; tests/io/test_io_frd_format.c
 * checks them against snprintf): CalculiX's E12.5 ("%12.5E") and its integers ("%10lld", "%5d"),
 * and results.dat's E13.6 ("%13.6E"). A block of a
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

/* The significant digits of a (normal, 1e-99 <= a < 1e100): r in [10^prec, 10^(prec + 1)) and
 * the exponent e with a = r 10^(e - prec), rounded as C rounds; -1 (nothing set) when a is
 * within 1e-6 of a tie (x.5 in the last digit), where only snprintf's exact rounding decides. */
static inline int dt_frd_digits(double a, int prec, unsigned *r, int *e) {
  const double lo = prec == 5 ? 1e5 : 1e6, hi = 10.0 * lo;
  double s, f;
  unsigned k;
  int x = dt_frd_exp10_guess(a); /* s = a 10^(prec - x) in [lo, hi) once x is right */
  s = dt_frd_scale10(a, prec - x);
  while (s >= hi) s = dt_frd_scale10(a, prec - ++x);
  while (s < lo) s = dt_frd_scale10(a, prec - --x);
  k = (unsigned)s;
  f = s - k;
  if (fabs(f - 0.5) < 1e-6) return -1;
  k += f > 0.5;
  if (k == (unsigned)hi) k = (unsigned)lo, x++; /* 9.99..95 and up: 1.00.. */
  *r = k, *e = x;
  return 0;
}

/* The mantissa and exponent of "%W.PE" at p: sign, d.ddd.. (prec decimals of r), E, the
 * exponent's sign and two digits (|e| <= 99); W = prec + 7 characters. */
static inline void dt_frd_put_mantissa(char *p, int negative, unsigned r, int prec, int e) {
  char d[8];
  for (int i = prec; i >= 0; i--) d[i] = (char)('0' + r % 10), r /= 10;
  p[0] = " -"[negative];
  p[1] = d[0];
  p[2] = '.';
  memcpy(p + 3, d + 1, (size_t)prec);
  p[3 + prec] = 'E';
  p[4 + prec] = "+-"[e < 0];
  dt_frd_put_pair(p + 5 + prec, (unsigned)(e < 0 ? -e : e));
}

/* "%12.5E" of v into p[0..11] (no terminator), with the rules above. */
static inline void dt_frd_put_e12(char *p, double v) {
  double a = fabs(v);
  unsigned r = 0;
  int e = 0;
  if (!(a >= 1e-99)) { /* also NaN and -0 */
    memcpy(p, " 0.00000E+00", 12);
    return;
  }
  if (a < 1e100 && dt_frd_digits(a, 5, &r, &e) != 0) { /* a tie, or nearly: C's exact rounding */
    char t[32];
    if (snprintf(t, sizeof t, "%12.5E", v) == 12 && (t[0] == ' ' || t[0] == '-')) {
      memcpy(p, t, 12);
      return;
    }
    e = 100; /* 1.00000E+100, which has no room for the sign */
  } else if (a >= 1e100) {
    e = 100;
  }
  if (e > 99) {
    memcpy(p, v < 0 ? "-9.99999E+99" : " 9.99999E+99", 12);
    return;
  }
  dt_frd_put_mantissa(p, v < 0, r, 5, e);
}

/* "%13.6E" of v into p[0..12] (no terminator) exactly as snprintf writes it (results.dat's
 * fields): the digits above for normal values whose exponent fits two digits, snprintf for
 * the rest (ties, NaN, infinities, exponents of three digits, which make the field 14 wide:
 * returns the width written, 13 or more). */
static inline int dt_frd_put_e13(char *p, double v) {
  double a = fabs(v);
  unsigned r = 0;
  int e = 0;
  if (v == 0.0) {
    memcpy(p, signbit(v) ? "-0.000000E+00" : " 0.000000E+00", 13);
    return 13;
  }
  if (!(a >= 1e-99 && a < 1e100) || dt_frd_digits(a, 6, &r, &e) != 0 || e > 99) {
    char t[32];
    int n = snprintf(t, sizeof t, "%13.6E", v);
    n = n < 0 ? 0 : n < (int)sizeof t ? n : (int)sizeof t - 1;
    memcpy(p, t, (size_t)n);
    return n;
  }
  dt_frd_put_mantissa(p, v < 0, r, 6, e);
  return 13;
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
