/* SHA-256 (FIPS 180-4), for hashing API tokens and checksumming uploaded meshes. */
#ifndef DT_SRV_SHA256_H
#define DT_SRV_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct dt_sha256 {
  uint32_t h[8];
  uint64_t len; /* bytes hashed so far */
  uint8_t buf[64];
  size_t nbuf;
} dt_sha256;

void dt_sha256_init(dt_sha256 *s);
void dt_sha256_update(dt_sha256 *s, const void *data, size_t n);
void dt_sha256_final(dt_sha256 *s, uint8_t out[32]);
/* One shot. */
void dt_sha256_buf(const void *data, size_t n, uint8_t out[32]);
/* Lower-case hex of n bytes into out (2n + 1 bytes). */
void dt_hex(const uint8_t *in, size_t n, char *out);

#endif
