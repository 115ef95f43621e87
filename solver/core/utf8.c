/* UTF-8 checks (see utf8.h). */
#include "utf8.h"

#include <stdint.h>
#include <string.h>

/* The length of the well-formed sequence that starts at s[0..n), or 0 if none does. The lead
 * byte fixes the length and the range of the second byte (Unicode Table 3-7): E0 needs A0..BF
 * (no overlong forms), ED 80..9F (no surrogates), F0 90..BF, F4 80..8F (nothing beyond
 * U+10FFFF); every other continuation byte is 80..BF. */
static size_t sequence(const unsigned char *s, size_t n) {
  size_t len, i;
  unsigned char lo = 0x80, hi = 0xBF;
  if (s[0] < 0x80) return 1;
  if (s[0] >= 0xC2 && s[0] <= 0xDF)
    len = 2;
  else if (s[0] >= 0xE0 && s[0] <= 0xEF)
    len = 3;
  else if (s[0] >= 0xF0 && s[0] <= 0xF4)
    len = 4;
  else
    return 0;
  if (s[0] == 0xE0) lo = 0xA0;
  if (s[0] == 0xED) hi = 0x9F;
  if (s[0] == 0xF0) lo = 0x90;
  if (s[0] == 0xF4) hi = 0x8F;
  if (n < len || s[1] < lo || s[1] > hi) return 0;
  for (i = 2; i < len; i++)
    if (s[i] < 0x80 || s[i] > 0xBF) return 0;
  return len;
}

/* Decks are nearly all ASCII: eight bytes at a time while none has its high bit set. */
size_t dt_utf8_invalid_at(const char *s, size_t n) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0, len;
  while (i < n) {
    uint64_t w;
    if (i + 8 <= n) {
      memcpy(&w, u + i, 8);
      if ((w & UINT64_C(0x8080808080808080)) == 0) {
        i += 8;
        continue;
      }
    }
    if ((len = sequence(u + i, n - i)) == 0) break;
    i += len;
  }
  return i;
}

size_t dt_utf8_prefix(const char *s, size_t n, size_t max) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0, len;
  while (i < n && (len = sequence(u + i, n - i)) > 0 && i + len <= max) i += len;
  return i;
}
