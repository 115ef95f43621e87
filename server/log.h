/* Structured log lines on stderr, one per event, logfmt style:
 *   ts=2025-01-02T03:04:05.678Z level=info req=r1a2b3c4-000042 msg="..." key=value ...
 * Thread-safe (each line is written with one locked fputs). Values are quoted and escaped
 * when they contain spaces, quotes or control characters, so a hostile path or header can
 * neither break a line nor forge another. */
#ifndef DT_SRV_LOG_H
#define DT_SRV_LOG_H

typedef enum dt_log_level {
  DT_LOG_DEBUG = 0,
  DT_LOG_INFO = 1,
  DT_LOG_WARN = 2,
  DT_LOG_ERROR = 3
} dt_log_level;

void dt_log_set_level(dt_log_level level);
/* Parse "debug", "info", "warn", "error"; -1 if unknown. */
int dt_log_level_parse(const char *s);

/* req may be NULL (no request). fmt is the message; kv, if not NULL, is a NULL-terminated
 * list of key, value pairs appended as key=value. */
void dt_log(dt_log_level level, const char *req, const char *const *kv, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define dt_log_info(...) dt_log(DT_LOG_INFO, NULL, NULL, __VA_ARGS__)
#define dt_log_warn(...) dt_log(DT_LOG_WARN, NULL, NULL, __VA_ARGS__)
#define dt_log_error(...) dt_log(DT_LOG_ERROR, NULL, NULL, __VA_ARGS__)

/* Current UTC time as "YYYY-MM-DDTHH:MM:SS.mmmZ" (buf of at least 32 bytes). */
void dt_now_iso(char *buf, unsigned len);
/* Monotonic seconds. */
double dt_mono(void);

#endif
