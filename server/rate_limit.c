/* Per-token request rate limit (see rate_limit.h). */
#include "rate_limit.h"

#include <stdatomic.h>
#include <stddef.h>

#define SLOTS 4096 /* a power of two, well above the tokens in use at once */
#define PROBES 8

typedef struct slot {
  _Atomic uint64_t key; /* the token id + 1 (0: free) */
  _Atomic int64_t tat;  /* theoretical arrival time of the next request, ns */
} slot;

static slot g_slots[SLOTS];
static int64_t g_interval_ns;  /* 1 s / rate; 0: no limit */
static int64_t g_tolerance_ns; /* how far ahead of now the schedule may run: burst intervals */

void dt_rate_limit_init(long long rate, long long burst) {
  for (int i = 0; i < SLOTS; i++) {
    atomic_store(&g_slots[i].key, 0);
    atomic_store(&g_slots[i].tat, 0);
  }
  g_interval_ns = rate > 0 ? (int64_t)(1000000000LL / rate) : 0;
  if (rate > 0 && g_interval_ns == 0) g_interval_ns = 1;
  g_tolerance_ns = g_interval_ns * (int64_t)(burst > 0 ? burst : 1);
}

/* A token id's 16 hex digits as a key (+1 keeps 0 for free slots); 0 for anything else. */
static uint64_t key_of(const char *id) {
  uint64_t k = 0;
  for (int i = 0; i < 16; i++) {
    char c = id[i];
    int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (v < 0) return 0;
    k = k << 4 | (uint64_t)v;
  }
  return id[16] == '\0' && k != UINT64_MAX ? k + 1 : 0;
}

/* The token's slot: its own, else a free one or one whose bucket is full again, taken over. */
static slot *slot_of(uint64_t key, int64_t now_ns) {
  uint64_t h = key * 0x9e3779b97f4a7c15ull;
  size_t base = (size_t)(h >> 52) & (SLOTS - 1);
  for (int i = 0; i < PROBES; i++) {
    slot *s = &g_slots[(base + (size_t)i) & (SLOTS - 1)];
    if (atomic_load_explicit(&s->key, memory_order_acquire) == key) return s;
  }
  for (int i = 0; i < PROBES; i++) {
    slot *s = &g_slots[(base + (size_t)i) & (SLOTS - 1)];
    uint64_t old = atomic_load_explicit(&s->key, memory_order_acquire);
    /* A request of the old token racing with the take-over may be charged to the new one:
     * one request's worth, once. */
    if ((old == 0 || atomic_load_explicit(&s->tat, memory_order_relaxed) <= now_ns) &&
        atomic_compare_exchange_strong(&s->key, &old, key))
      return s;
    if (old == key) return s;
  }
  return NULL;
}

int dt_rate_limit_take(const char *token_id, int64_t now_ns, long long *retry_after_s) {
  uint64_t key;
  slot *s;
  int64_t tat, next;
  *retry_after_s = 0;
  if (g_interval_ns == 0 || (key = key_of(token_id)) == 0 || !(s = slot_of(key, now_ns))) return 1;
  tat = atomic_load_explicit(&s->tat, memory_order_relaxed);
  do {
    next = (tat > now_ns ? tat : now_ns) + g_interval_ns;
    if (next - now_ns > g_tolerance_ns) {
      int64_t wait = next - now_ns - g_tolerance_ns;
      *retry_after_s = (long long)((wait + 999999999) / 1000000000);
      if (*retry_after_s < 1) *retry_after_s = 1;
      return 0;
    }
  } while (!atomic_compare_exchange_weak_explicit(&s->tat, &tat, next, memory_order_relaxed,
                                                  memory_order_relaxed));
  return 1;
}
