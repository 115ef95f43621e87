"""A minimal PEP 517 build backend (standard library only) so that `pip install clients/python`
needs no network: it packs ductile_client/ into a pure-Python wheel. Editable installs
(`pip install -e`) put this folder on sys.path through a .pth file."""
from __future__ import annotations

import base64
import hashlib
import os
import tarfile
import zipfile
from typing import Any, Dict, List, Optional, Tuple

NAME, DIST, VERSION = "ductile-client", "ductile_client", "0.1.0"
HERE = os.path.dirname(os.path.abspath(__file__))
TAG = "py3-none-any"


def _metadata() -> str:
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
            "Summary: Python client of ductiled, the ductile elastoplastic FEM service\n"
            "Requires-Python: >=3.8\nProvides-Extra: numpy\nRequires-Dist: numpy; extra == \"numpy\"\n")


def _files() -> List[Tuple[str, bytes]]:
    out = []
    pkg = os.path.join(HERE, DIST)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") or name == "py.typed":
            with open(os.path.join(pkg, name), "rb") as f:
                out.append((f"{DIST}/{name}", f.read()))
    return out


def _wheel(directory: str, files: List[Tuple[str, bytes]]) -> str:
    info = f"{DIST}-{VERSION}.dist-info"
    files = files + [(f"{info}/METADATA", _metadata().encode()),
                     (f"{info}/WHEEL", f"Wheel-Version: 1.0\nGenerator: ductile\nRoot-Is-Purelib: true\nTag: {TAG}\n".encode())]
    record = []
    for path, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    name = f"{DIST}-{VERSION}-{TAG}.whl"
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            z.writestr(path, data)
        z.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return name


def get_requires_for_build_wheel(config_settings: Optional[Dict[str, Any]] = None) -> List[str]:
    return []


get_requires_for_build_sdist = get_requires_for_build_editable = get_requires_for_build_wheel


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    return _wheel(wheel_directory, _files())


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None,
                   metadata_directory: Optional[str] = None) -> str:
    return _wheel(wheel_directory, [(f"__editable__.{DIST}.pth", (HERE + "\n").encode())])


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    base = f"{DIST}-{VERSION}"
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for rel in ["pyproject.toml", "_build_backend.py", "README.md"] + [p for p, _ in _files()]:
            t.add(os.path.join(HERE, rel), arcname=f"{base}/{rel}")
        pkg_info = os.path.join(sdist_directory, "PKG-INFO.tmp")
        with open(pkg_info, "w") as f:
            f.write(_metadata())
        t.add(pkg_info, arcname=f"{base}/PKG-INFO")
        os.unlink(pkg_info)
    return name
