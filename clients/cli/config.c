/* Settings: --url/--token/--token-file flags, then DUCTILE_URL/DUCTILE_TOKEN/DUCTILE_TOKEN_FILE,
 * then the config file (--config, DUCTILE_CONFIG, $XDG_CONFIG_HOME/ductile/client.conf or
 * ~/.config/ductile/client.conf: "key = value" lines, keys url, token, token_file), then the
 * defaults. Without a token and with a loopback URL, the admin.token that a daemon on this
 * machine wrote on its first start is used: $DUCTILED_DATA_DIR, the data_dir of the daemon's
 * config ($DUCTILED_CONFIG or /etc/ductile/ductiled.conf), ./ductile-data, /var/lib/ductile. */
#include "client.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DC_DEFAULT_URL "http://127.0.0.1:8080"

static char *trim(char *p) {
  char *e;
  while (*p && isspace((unsigned char)*p)) p++;
  e = p + strlen(p);
  while (e > p && isspace((unsigned char)e[-1])) *--e = '\0';
  return p;
}

/* Value of key in a "key = value" file (comments after #); 1 found, 0 not, -1 unreadable. */
static int conf_get(const char *path, const char *key, char *out, size_t cap) {
  char line[2048];
  int found = 0;
  FILE *fp = fopen(path, "r");
  if (!fp) return -1;
  while (fgets(line, sizeof line, fp)) {
    char *hash = strchr(line, '#'), *eq, *k, *v;
    if (hash) *hash = '\0';
    eq = strchr(line, '=');
    if (!eq) continue;
    *eq = '\0';
    k = trim(line);
    v = trim(eq + 1);
    if (strcmp(k, key) == 0) {
      snprintf(out, cap, "%s", v);
      found = 1;
    }
  }
  fclose(fp);
  return found;
}

/* First line of a token file, trimmed. 0 on success. */
static int read_token_file(const char *path, char *out, size_t cap) {
  char buf[1024];
  FILE *fp = fopen(path, "r");
  if (!fp) return -1;
  if (!fgets(buf, sizeof buf, fp)) buf[0] = '\0';
  fclose(fp);
  snprintf(out, cap, "%s", trim(buf));
  return out[0] ? 0 : -1;
}

static int is_loopback_url(const char *url) {
  const char *h = strstr(url, "://");
  h = h ? h + 3 : url;
  return strncmp(h, "127.", 4) == 0 || strncmp(h, "localhost", 9) == 0 ||
         strncmp(h, "[::1]", 5) == 0;
}

static int try_token_dir(dc_settings *s, const char *dir, const char *why) {
  char path[1024];
  if (!dir || !dir[0]) return -1;
  /* a directory whose token path does not fit is not one we can read from */
  int n = snprintf(path, sizeof path, "%s/admin.token", dir);
  if (n < 0 || (size_t)n >= sizeof path) return -1;
  if (read_token_file(path, s->token, sizeof s->token) != 0) return -1;
  snprintf(s->token_from, sizeof s->token_from, "%.600s (%.600s)", path, why);
  return 0;
}

static void auto_token(dc_settings *s) {
  char dir[1024];
  const char *dconf = getenv("DUCTILED_CONFIG");
  if (try_token_dir(s, getenv("DUCTILED_DATA_DIR"), "DUCTILED_DATA_DIR") == 0) return;
  if (!dconf || !dconf[0]) dconf = "/etc/ductile/ductiled.conf";
  if (conf_get(dconf, "data_dir", dir, sizeof dir) == 1 && try_token_dir(s, dir, dconf) == 0)
    return;
  if (try_token_dir(s, "./ductile-data", "the daemon's default data directory") == 0) return;
  (void)try_token_dir(s, "/var/lib/ductile", "the packaged daemon's data directory");
}

static int default_config_path(char *out, size_t cap) {
  const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
  if (xdg && xdg[0])
    snprintf(out, cap, "%s/ductile/client.conf", xdg);
  else if (home && home[0])
    snprintf(out, cap, "%s/.config/ductile/client.conf", home);
  else
    return -1;
  return 0;
}

/* Apply the config file's url/token/token_file where nothing stronger set them. */
static int apply_config(dc_settings *s, const char *flag_config) {
  char path[1024], v[1024];
  const char *env = getenv("DUCTILE_CONFIG");
  int explicit = 1, rc;
  if (flag_config)
    snprintf(path, sizeof path, "%s", flag_config);
  else if (env && env[0])
    snprintf(path, sizeof path, "%s", env);
  else {
    explicit = 0;
    if (default_config_path(path, sizeof path) != 0) return 0;
  }
  rc = conf_get(path, "url", v, sizeof v);
  if (rc < 0) {
    if (!explicit) return 0;
    fprintf(stderr, "ductile: cannot read config file %s: %s\n", path, strerror(errno));
    return DC_EXIT_USAGE;
  }
  if (rc == 1 && !s->url[0]) {
    snprintf(s->url, sizeof s->url, "%s", v);
    snprintf(s->url_from, sizeof s->url_from, "%.250s", path);
  }
  if (!s->token[0] && conf_get(path, "token", v, sizeof v) == 1 && v[0]) {
    snprintf(s->token, sizeof s->token, "%.500s", v);
    snprintf(s->token_from, sizeof s->token_from, "%.600s", path);
  }
  if (!s->token[0] && conf_get(path, "token_file", v, sizeof v) == 1) {
    if (read_token_file(v, s->token, sizeof s->token) != 0) {
      fprintf(stderr, "ductile: cannot read token_file %s (from %s)\n", v, path);
      return DC_EXIT_USAGE;
    }
    snprintf(s->token_from, sizeof s->token_from, "%.600s (token_file in %.600s)", v, path);
  }
  return 0;
}

int dc_settings_resolve(dc_settings *s, const char *flag_url, const char *flag_token,
                        const char *flag_token_file, const char *flag_config) {
  const char *e;
  size_t n;
  int rc;
  if (flag_url) {
    snprintf(s->url, sizeof s->url, "%s", flag_url);
    snprintf(s->url_from, sizeof s->url_from, "--url");
  } else if ((e = getenv("DUCTILE_URL")) && e[0]) {
    snprintf(s->url, sizeof s->url, "%s", e);
    snprintf(s->url_from, sizeof s->url_from, "DUCTILE_URL");
  }
  if (flag_token) {
    snprintf(s->token, sizeof s->token, "%s", flag_token);
    snprintf(s->token_from, sizeof s->token_from, "--token");
  } else if (flag_token_file) {
    if (read_token_file(flag_token_file, s->token, sizeof s->token) != 0) {
      fprintf(stderr, "ductile: cannot read --token-file %s\n", flag_token_file);
      return DC_EXIT_USAGE;
    }
    snprintf(s->token_from, sizeof s->token_from, "%s (--token-file)", flag_token_file);
  } else if ((e = getenv("DUCTILE_TOKEN")) && e[0]) {
    snprintf(s->token, sizeof s->token, "%s", e);
    snprintf(s->token_from, sizeof s->token_from, "DUCTILE_TOKEN");
  } else if ((e = getenv("DUCTILE_TOKEN_FILE")) && e[0]) {
    if (read_token_file(e, s->token, sizeof s->token) != 0) {
      fprintf(stderr, "ductile: cannot read DUCTILE_TOKEN_FILE %s\n", e);
      return DC_EXIT_USAGE;
    }
    snprintf(s->token_from, sizeof s->token_from, "%s (DUCTILE_TOKEN_FILE)", e);
  }
  rc = apply_config(s, flag_config);
  if (rc != 0) return rc;
  if (!s->url[0]) {
    snprintf(s->url, sizeof s->url, "%s", DC_DEFAULT_URL);
    snprintf(s->url_from, sizeof s->url_from, "the default");
  }
  if (!strstr(s->url, "://")) {
    char tmp[sizeof s->url];
    snprintf(tmp, sizeof tmp, "%s", s->url);
    snprintf(s->url, sizeof s->url, "http://%.1000s", tmp);
  }
  n = strlen(s->url);
  while (n > 0 && s->url[n - 1] == '/') s->url[--n] = '\0';
  if (!s->token[0] && is_loopback_url(s->url)) auto_token(s);
  return 0;
}
