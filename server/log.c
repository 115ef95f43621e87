/* Structured logging (see log.h). */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static dt_log_level g_level = DT_LOG_INFO; /* set once at start-up, before threads exist */

void dt_log_set_level(dt_log_level level) { g_level = level; }

int dt_log_level_parse(const char *s) {
  static const char *const names[] = {"debug", "info", "warn", "error"};
  for (int i = 0; i < 4; i++)
    if (!strcmp(s, names[i])) return i;
  return -1;
}

void dt_now_iso(char *buf, unsigned len) {
  struct timespec ts;
  struct tm tm;
  clock_gettime(CLOCK_REALTIME, &ts);
  gmtime_r(&ts.tv_sec, &tm);
  /* Fields clamped to their ranges so that the compiler can bound the length (<= 24 + NUL). */
  snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", (tm.tm_year + 1900) % 10000,
           (tm.tm_mon + 1) % 100, tm.tm_mday % 100, tm.tm_hour % 100, tm.tm_min % 100,
           tm.tm_sec % 100, (int)(ts.tv_nsec / 1000000) % 1000);
}

double dt_mono(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Append s to the line, quoted and escaped if needed, truncated at 300 characters. */
static size_t put_value(char *out, size_t pos, size_t cap, const char *s) {
  int quote = (*s == '\0');
  size_t n = 0;
  for (const char *p = s; *p; p++)
    if (*p == ' ' || *p == '"' || *p == '=' || (unsigned char)*p < 0x20 || *p == 0x7f) quote = 1;
  if (quote && pos + 1 < cap) out[pos++] = '"';
  for (const unsigned char *p = (const unsigned char *)s; *p && pos + 6 < cap && n < 300;
       p++, n++) {
    if (*p == '"' || *p == '\\') {
      out[pos++] = '\\';
      out[pos++] = (char)*p;
    } else if (*p < 0x20 || *p == 0x7f) {
      pos += (size_t)snprintf(out + pos, cap - pos, "\\x%02x", *p);
    } else {
      out[pos++] = (char)*p;
    }
  }
  if (quote && pos + 1 < cap) out[pos++] = '"';
  out[pos] = '\0';
  return pos;
}

void dt_log(dt_log_level level, const char *req, const char *const *kv, const char *fmt, ...) {
  static const char *const names[] = {"debug", "info", "warn", "error"};
  char line[4096], msg[2048], ts[40];
  size_t pos;
  va_list ap;
  if (level < g_level) return;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  dt_now_iso(ts, sizeof ts);
  pos = (size_t)snprintf(line, sizeof line, "ts=%s level=%s", ts, names[level]);
  if (req) {
    pos += (size_t)snprintf(line + pos, sizeof line - pos, " req=");
    pos = put_value(line, pos, sizeof line, req);
  }
  pos += (size_t)snprintf(line + pos, sizeof line - pos, " msg=");
  pos = put_value(line, pos, sizeof line, msg);
  for (int i = 0; kv && kv[i] && kv[i + 1] && pos + 8 < sizeof line; i += 2) {
    pos += (size_t)snprintf(line + pos, sizeof line - pos, " %s=", kv[i]);
    pos = put_value(line, pos, sizeof line, kv[i + 1]);
  }
  if (pos + 2 > sizeof line) pos = sizeof line - 2;
  line[pos++] = '\n';
  line[pos] = '\0';
  flockfile(stderr);
  fputs(line, stderr);
  fflush(stderr);
  funlockfile(stderr);
}
