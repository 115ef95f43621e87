/* The UTF-8 checks (core/utf8.h) accept what Jansson accepts and nothing else: ASCII and
 * well-formed sequences of 2 to 4 bytes pass; a Latin-1 byte, a stray continuation byte, an
 * overlong form, a surrogate, a code point above U+10FFFF and a sequence cut short by the end
 * fail at their first byte. A prefix cut to a byte budget never splits a character. */
#include <jansson.h>
#include <string.h>

#include "core/utf8.h"
#include "unit_model.h"

/* Jansson's verdict on s[0..n): the reference the checks must agree with. */
static int jansson_accepts(const char *s, size_t n) {
  json_t *j = json_stringn(s, n);
  int ok = j != NULL;
  json_decref(j);
  return ok;
}

static void check(const char *s, size_t want_bad) {
  size_t n = strlen(s), bad = dt_utf8_invalid_at(s, n);
  CHECK(bad == want_bad, "\"%s\": first bad byte at %zu, want %zu", s, bad, want_bad);
  CHECK(jansson_accepts(s, n) == (bad == n), "\"%s\": Jansson disagrees", s);
}

int main(void) {
  const char *euro = "\xE2\x82\xAC"; /* U+20AC, 3 bytes */
  char text[16];
  check("plain ASCII", 11);
  check("caf\xC3\xA9", 5);             /* é */
  check("\xF0\x9F\x98\x80 smile", 10); /* U+1F600, 4 bytes */
  check("\xF4\x8F\xBF\xBF", 4);        /* U+10FFFF, the last code point */
  check("caf\xE9 (Latin-1)", 3);       /* a lone lead byte */
  check("x\x80", 1);                   /* a stray continuation byte */
  check("\xC0\xAF", 0);                /* overlong '/' */
  check("\xE0\x80\xAF", 0);            /* overlong, 3 bytes */
  check("\xED\xA0\x80", 0);            /* the surrogate U+D800 */
  check("\xF4\x90\x80\x80", 0);        /* U+110000 */
  check("\xF5\x80\x80\x80", 0);        /* no such lead byte */
  check("ab\xE2\x82", 2);              /* cut short by the end */
  /* ASCII is checked eight bytes at a time: bad bytes on each side of a word's boundary */
  check("0123456\xE9", 7);
  check("01234567\xE9", 8);
  check("012345678\x80", 9);
  check("0123456789abcdef\xC3\xA9xyz0123456789", 31);
  check("0123456789abcde\xC3\xA9xyz01234567\xFF"
        "89",
        28);
  check("0123456789abcdef0123\xE2\x82", 20); /* cut short after whole words */
  snprintf(text, sizeof text, "ab%s", euro); /* 5 bytes: a, b, then 3 of the euro sign */
  CHECK(dt_utf8_prefix(text, 5, 4) == 2, "a cut must not split the euro sign");
  CHECK(dt_utf8_prefix(text, 5, 5) == 5, "all of it fits");
  CHECK(dt_utf8_prefix(text, 5, 100) == 5, "a budget beyond the text");
  CHECK(dt_utf8_prefix("ab\xE9z", 4, 10) == 2, "a prefix stops at a byte that is not UTF-8");
  printf("PASS\n");
  return 0;
}
