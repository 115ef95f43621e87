"""deploy/ductiled.service as systemd reads it: `systemd-analyze verify` on a copy whose
ExecStart names the built daemon must print nothing (systemd warns about every unknown key,
misspelt option or invalid value, and ignores that line: a hardening option with a typo would
silently not apply). A copy with a deliberate typo must draw a warning, which shows that the
check can fail. Skips (exit 77) where systemd-analyze is not installed (Debian: systemd).
  test_unit_file.py DUCTILED_BINARY"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def verify(text, where):
    path = os.path.join(where, "ductiled.service")
    with open(path, "w") as f:
        f.write(text)
    r = subprocess.run(["systemd-analyze", "verify", path], capture_output=True, text=True, timeout=60)
    return (r.stdout + r.stderr).strip()


def main():
    binary = os.path.abspath(sys.argv[1])
    if not shutil.which("systemd-analyze"):
        print("systemd-analyze not installed: skipped")
        return 77
    with open(os.path.join(ROOT, "deploy", "ductiled.service")) as f:
        unit = f.read()
    assert "ExecStart=/usr/local/bin/ductiled " in unit, "the unit's ExecStart changed"
    unit = unit.replace("/usr/local/bin/ductiled", binary)
    with tempfile.TemporaryDirectory() as where:
        out = verify(unit, where)
        assert out == "", "systemd-analyze verify warns:\n" + out
        print("deploy/ductiled.service: systemd-analyze verify prints nothing")
        bad = verify(unit.replace("ProtectSystem=strict", "ProtectSystm=strict"), where)
        assert "ProtectSystm" in bad, "a misspelt option drew no warning: " + bad
        print("a misspelt option is reported: " + bad.splitlines()[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
