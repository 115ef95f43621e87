/* Per-token request rate limit: a token may make rate_burst requests at once and rate_limit
 * requests per second after that; beyond, 429 rate_limited with Retry-After (http.c).
 *
 * The check is on every authenticated request, so it is O(1) and takes no lock: each token
 * has one slot of a fixed open-addressed table, found by its id within a few probes, and the
 * slot's state is one 64-bit theoretical arrival time (GCRA, the leaky bucket as a virtual
 * schedule) that a request advances with one compare-and-swap. A slot whose bucket is full
 * again (its time has passed) holds no information, so a new token may take it over; when
 * no slot is free the request is let through rather than refused for the table's sake. */
#ifndef DT_SRV_RATE_LIMIT_H
#define DT_SRV_RATE_LIMIT_H

#include <stdint.h>

/* Set the limit (rate 0: no limit) and forget every token's history. Not thread-safe: called
 * before the HTTP daemon starts. */
void dt_rate_limit_init(long long rate, long long burst);
/* Whether the token (its 16-hex-digit id) may make a request at monotonic time now_ns: 1, or 0
 * with *retry_after_s, the whole seconds after which one more request is allowed (at least 1). */
int dt_rate_limit_take(const char *token_id, int64_t now_ns, long long *retry_after_s);

#endif
