/* UTF-8 text: what the JSON documents accept. Titles and names read from users' files (a
 * deck's *HEADING, set names, Gmsh physical names) end up in summary.json and in the daemon's
 * JSON replies, and Jansson refuses strings that are not well-formed UTF-8; so the importers
 * refuse such text where they read it, with its line, and cut long text only at a character
 * boundary. */
#ifndef DT_UTF8_H
#define DT_UTF8_H

#include <stddef.h>

/* The offset of the first byte of s[0..n) that is not part of a well-formed UTF-8 sequence
 * (RFC 3629, as Jansson checks it: no overlong forms, no surrogates, nothing above U+10FFFF,
 * no sequence cut short by the end), or n when all of s[0..n) is UTF-8. */
size_t dt_utf8_invalid_at(const char *s, size_t n);

/* The length of the longest prefix of the UTF-8 text s[0..n) that holds whole characters and
 * is at most max bytes: where to cut s to fit max bytes without splitting a character. */
size_t dt_utf8_prefix(const char *s, size_t n, size_t max);

#endif
