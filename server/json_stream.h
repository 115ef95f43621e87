/* JSON text written straight to a file, for documents too large to build as json_t trees: the
 * fields of an increment hold about a million numbers, and Jansson allocates one json_t per
 * number, then walks them all again to dump them.
 *
 * The caller writes the punctuation and keys itself (dt_json_stream_raw) and the numbers
 * through dt_json_stream_int and dt_json_stream_real. A real is written as Jansson writes it
 * (json_dumps without JSON_REAL_PRECISION): "%.17g", ".0" appended when neither a '.' nor an
 * exponent shows that it is a real, the exponent without '+' or leading zeros. So every double
 * reads back exactly, and the text is the bytes Jansson would write for the same document.
 * JSON has no NaN or infinity: those are written as null.
 *
 * Errors are sticky: after a failed write the stream ignores what follows, and
 * dt_json_stream_close reports the failure (errno set by the failed call). */
#ifndef DT_SRV_JSON_STREAM_H
#define DT_SRV_JSON_STREAM_H

#include <stddef.h>
#include <stdio.h>

/* The longest text of a real: "-2.2250738585072014e-308" is 24 characters. */
#define DT_JSON_REAL_MAX 32

typedef struct dt_json_stream {
  FILE *f; /* borrowed; the caller opens and closes it */
  char buf[1 << 16];
  size_t n;
  int err;
} dt_json_stream;

/* Start writing to f (borrowed). */
void dt_json_stream_init(dt_json_stream *s, FILE *f);
void dt_json_stream_raw(dt_json_stream *s, const char *text, size_t len);
void dt_json_stream_int(dt_json_stream *s, long long v);
void dt_json_stream_real(dt_json_stream *s, double v);
/* Write out what is buffered; 0, or -1 if any write failed (then or earlier). f stays open. */
int dt_json_stream_flush(dt_json_stream *s);

/* The text of a finite v as Jansson writes a real, in out (NUL-terminated); its length. */
size_t dt_json_real_text(double v, char out[DT_JSON_REAL_MAX]);

#endif
