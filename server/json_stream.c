/* JSON text straight to a file (see json_stream.h).
 *
 * dt_json_real_text finds the 17 significant digits of "%.17g" exactly with integer
 * arithmetic where that is cheap (|v| from 1e-11 to 1e17, which holds every field value of a
 * sane analysis) and asks snprintf otherwise; the integer path is several times faster than
 * glibc's printf, whose multi-precision rounding is what dominates writing a fields file. */
#include "json_stream.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* 5^0 .. 5^27: 5^27 < 2^63, so a 53-bit mantissa times any of them fits in 116 bits. */
static const uint64_t POW5[28] = {1ULL,
                                  5ULL,
                                  25ULL,
                                  125ULL,
                                  625ULL,
                                  3125ULL,
                                  15625ULL,
                                  78125ULL,
                                  390625ULL,
                                  1953125ULL,
                                  9765625ULL,
                                  48828125ULL,
                                  244140625ULL,
                                  1220703125ULL,
                                  6103515625ULL,
                                  30517578125ULL,
                                  152587890625ULL,
                                  762939453125ULL,
                                  3814697265625ULL,
                                  19073486328125ULL,
                                  95367431640625ULL,
                                  476837158203125ULL,
                                  2384185791015625ULL,
                                  11920928955078125ULL,
                                  59604644775390625ULL,
                                  298023223876953125ULL,
                                  1490116119384765625ULL,
                                  7450580596923828125ULL};

#define TEN16 10000000000000000ULL
#define TEN17 100000000000000000ULL

/* N = a * 10^s rounded to the nearest integer, exactly: a = m 2^e (m the 53-bit mantissa of a
 * normal double), so a 10^s = m 5^s 2^(e+s), an integer shifted by e+s. 0 where this is not
 * cheap (s outside 0..27) or the exact value lies half-way (printf then decides the tie). */
static int scaled(double a, int s, uint64_t *out) {
  int exp2 = 0;
  const double frac = frexp(a, &exp2);
  const uint64_t m = (uint64_t)ldexp(frac, 53);
  const int sh = exp2 - 53 + s;
  unsigned __int128 x, q, r, half;
  if (s < 0 || s > 27) return 0;
  x = (unsigned __int128)m * POW5[s];
  if (sh >= 0) {
    if (sh > 8) return 0; /* a >= 2^53 and s <= 1: the value has at most 18 digits */
    x <<= sh;
    if (x >= (unsigned __int128)TEN17 * 10) return 0;
    *out = (uint64_t)x;
    return 1;
  }
  if (-sh >= 120) return 0;
  q = x >> -sh;
  r = x - (q << -sh);
  half = (unsigned __int128)1 << (-sh - 1);
  if (r == half) return 0;
  *out = (uint64_t)(q + (r > half));
  return 1;
}

/* The 17 significant digits of a > 0 rounded as printf rounds them, and the decimal exponent of
 * the first: a ~ d[0].d[1]...d[16] x 10^k. 0 where scaled() declines. */
static int digits17(double a, char d[17], int *k) {
  int exp2 = 0;
  uint64_t n = 0;
  frexp(a, &exp2);
  /* 2^(exp2-1) <= a, so this k never exceeds floor(log10 a), and falls short by at most 1 */
  *k = (int)floor((exp2 - 1) * 0.30102999566398120);
  if (!scaled(a, 16 - *k, &n)) return 0;
  if (n >= TEN17 && n != TEN17) {
    ++*k;
    if (!scaled(a, 16 - *k, &n)) return 0;
  }
  if (n == TEN17) { /* rounding carried into one more digit: 9.99..96 -> 1.0e+(k+1) */
    n = TEN16;
    ++*k;
  }
  if (n < TEN16 || n >= TEN17) return 0;
  for (int i = 16; i >= 0; i--, n /= 10) d[i] = (char)('0' + n % 10);
  return 1;
}

/* %.17g from its digits: fixed notation for -4 <= k < 17, else exponential; trailing zeros
 * of the fraction dropped; then Jansson's touches (".0", exponent without '+' or zeros). */
static size_t format_g(int neg, const char d[17], int k, char *out) {
  char *p = out;
  int last = 16;
  while (last > 0 && d[last] == '0') last--; /* d[0..last]: the digits that show */
  if (neg) *p++ = '-';
  if (k >= -4 && k < 17) {
    if (k < 0) {
      *p++ = '0';
      *p++ = '.';
      for (int i = 0; i < -k - 1; i++) *p++ = '0';
      memcpy(p, d, (size_t)last + 1);
      p += last + 1;
    } else {
      memcpy(p, d, (size_t)k + 1);
      p += k + 1;
      *p++ = '.';
      if (last > k) {
        memcpy(p, d + k + 1, (size_t)(last - k));
        p += last - k;
      } else {
        *p++ = '0';
      }
    }
  } else {
    int e = k < 0 ? -k : k;
    char rev[8];
    int nr = 0;
    *p++ = d[0];
    if (last > 0) {
      *p++ = '.';
      memcpy(p, d + 1, (size_t)last);
      p += last;
    }
    *p++ = 'e';
    if (k < 0) *p++ = '-';
    do rev[nr++] = (char)('0' + e % 10);
    while ((e /= 10) > 0);
    while (nr > 0) *p++ = rev[--nr];
  }
  *p = '\0';
  return (size_t)(p - out);
}

/* What Jansson's jsonp_dtostr does to snprintf's text: ".0" when it would read as an integer,
 * no '+' and no leading zeros in the exponent. */
static size_t jansson_touches(char *t, size_t len) {
  char *start, *end;
  if (!strchr(t, '.') && !strchr(t, 'e')) {
    memcpy(t + len, ".0", 3);
    len += 2;
  }
  start = strchr(t, 'e');
  if (start) {
    start++;
    end = start + 1;
    if (*start == '-') start++;
    while (*end == '0') end++;
    if (end != start) {
      memmove(start, end, len - (size_t)(end - t) + 1);
      len -= (size_t)(end - start);
    }
  }
  return len;
}

size_t dt_json_real_text(double v, char out[DT_JSON_REAL_MAX]) {
  char d[17];
  int k = 0, len;
  if (v == 0.0) {
    memcpy(out, signbit(v) ? "-0.0" : "0.0", signbit(v) ? 5 : 4);
    return signbit(v) ? 4 : 3;
  }
  if (isnormal(v) && digits17(fabs(v), d, &k)) return format_g(v < 0, d, k, out);
  len = snprintf(out, DT_JSON_REAL_MAX - 3, "%.17g", v);
  return jansson_touches(out, len > 0 ? (size_t)len : 0);
}

static void put(dt_json_stream *s, const char *text, size_t len) {
  if (s->err) return;
  if (s->n + len > sizeof s->buf) {
    if (fwrite(s->buf, 1, s->n, s->f) != s->n) {
      s->err = 1;
      return;
    }
    s->n = 0;
    if (len > sizeof s->buf) {
      if (fwrite(text, 1, len, s->f) != len) s->err = 1;
      return;
    }
  }
  memcpy(s->buf + s->n, text, len);
  s->n += len;
}

void dt_json_stream_init(dt_json_stream *s, FILE *f) {
  s->f = f;
  s->n = 0;
  s->err = 0;
}

void dt_json_stream_raw(dt_json_stream *s, const char *text, size_t len) { put(s, text, len); }

void dt_json_stream_int(dt_json_stream *s, long long v) {
  char rev[24], out[24];
  unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  int nr = 0, n = 0;
  do rev[nr++] = (char)('0' + u % 10);
  while ((u /= 10) > 0);
  if (v < 0) out[n++] = '-';
  while (nr > 0) out[n++] = rev[--nr];
  put(s, out, (size_t)n);
}

void dt_json_stream_real(dt_json_stream *s, double v) {
  char t[DT_JSON_REAL_MAX];
  if (!isfinite(v)) {
    put(s, "null", 4);
    return;
  }
  put(s, t, dt_json_real_text(v, t));
}

int dt_json_stream_flush(dt_json_stream *s) {
  if (!s->err && s->n > 0 && fwrite(s->buf, 1, s->n, s->f) != s->n) s->err = 1;
  s->n = 0;
  if (!s->err && fflush(s->f) != 0) s->err = 1;
  return s->err ? -1 : 0;
}
