"""Where the client finds the server URL and the token (the same rules as the ``ductile`` CLI).

Order: explicit arguments, then ``DUCTILE_URL`` / ``DUCTILE_TOKEN`` / ``DUCTILE_TOKEN_FILE``,
then the config file (``DUCTILE_CONFIG``, ``$XDG_CONFIG_HOME/ductile/client.conf`` or
``~/.config/ductile/client.conf``; ``key = value`` lines with keys ``url``, ``token``,
``token_file``), then the default URL ``http://127.0.0.1:8080``. Without a token and with a
loopback URL, the ``admin.token`` that a daemon on this machine wrote on its first start is used
(``$DUCTILED_DATA_DIR``, the ``data_dir`` of ``$DUCTILED_CONFIG`` or
``/etc/ductile/ductiled.conf``, ``./ductile-data``, ``/var/lib/ductile``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, Optional

DEFAULT_URL = "http://127.0.0.1:8080"


@dataclass
class Settings:
    """The resolved connection settings and where each came from (for error messages)."""

    url: str
    token: Optional[str]
    url_from: str
    token_from: str


def read_conf(path: str) -> Dict[str, str]:
    """Parse a ``key = value`` file (``#`` starts a comment). Raises OSError if unreadable."""
    out: Dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0]
            if "=" in line:
                k, v = line.split("=", 1)
                out[k.strip()] = v.strip()
    return out


def _read_token(path: str) -> Optional[str]:
    try:
        with open(path, encoding="utf-8") as f:
            tok = f.readline().strip()
    except OSError:
        return None
    return tok or None


def _is_loopback(url: str) -> bool:
    host = url.split("://", 1)[-1]
    return host.startswith(("127.", "localhost", "[::1]"))


def _auto_token() -> "tuple[Optional[str], str]":
    dirs = []
    if os.environ.get("DUCTILED_DATA_DIR"):
        dirs.append((os.environ["DUCTILED_DATA_DIR"], "DUCTILED_DATA_DIR"))
    dconf = os.environ.get("DUCTILED_CONFIG") or "/etc/ductile/ductiled.conf"
    try:
        dd = read_conf(dconf).get("data_dir")
        if dd:
            dirs.append((dd, dconf))
    except OSError:
        pass
    dirs += [("./ductile-data", "the daemon's default data directory"),
             ("/var/lib/ductile", "the packaged daemon's data directory")]
    for d, why in dirs:
        path = os.path.join(d, "admin.token")
        tok = _read_token(path)
        if tok:
            return tok, f"{path} ({why})"
    return None, "nowhere (no token given and no admin.token found)"


def resolve(url: Optional[str] = None, token: Optional[str] = None, *,
            token_file: Optional[str] = None, config: Optional[str] = None) -> Settings:
    """Resolve the settings; raises ValueError for an explicit file that cannot be read."""
    url_from = token_from = ""
    if url:
        url_from = "argument"
    elif os.environ.get("DUCTILE_URL"):
        url, url_from = os.environ["DUCTILE_URL"], "DUCTILE_URL"
    if token:
        token_from = "argument"
    elif token_file:
        token, token_from = _read_token(token_file), f"{token_file} (token_file)"
        if not token:
            raise ValueError(f"cannot read the token file {token_file}")
    elif os.environ.get("DUCTILE_TOKEN"):
        token, token_from = os.environ["DUCTILE_TOKEN"], "DUCTILE_TOKEN"
    elif os.environ.get("DUCTILE_TOKEN_FILE"):
        path = os.environ["DUCTILE_TOKEN_FILE"]
        token, token_from = _read_token(path), f"{path} (DUCTILE_TOKEN_FILE)"
        if not token:
            raise ValueError(f"cannot read DUCTILE_TOKEN_FILE {path}")
    explicit = config or os.environ.get("DUCTILE_CONFIG")
    if explicit:
        path = explicit
    else:
        base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
        path = os.path.join(base, "ductile", "client.conf")
    try:
        conf = read_conf(path)
    except OSError as e:
        if explicit:
            raise ValueError(f"cannot read the config file {path}: {e.strerror}") from None
        conf = {}
    if not url and conf.get("url"):
        url, url_from = conf["url"], path
    if not token and conf.get("token"):
        token, token_from = conf["token"], path
    if not token and conf.get("token_file"):
        token, token_from = _read_token(conf["token_file"]), f"{conf['token_file']} (token_file in {path})"
        if not token:
            raise ValueError(f"cannot read token_file {conf['token_file']} (from {path})")
    if not url:
        url, url_from = DEFAULT_URL, "the default"
    if "://" not in url:
        url = "http://" + url
    url = url.rstrip("/")
    if not token and _is_loopback(url):
        token, token_from = _auto_token()
    return Settings(url=url, token=token, url_from=url_from, token_from=token_from or "nowhere")
