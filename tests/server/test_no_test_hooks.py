"""A build without DUCTILE_TEST_HOOKS (a build for use) refuses the test hooks' settings
(server/config.h): the config key test_iteration_delay_ms, its environment variable,
DUCTILED_TEST_DISK_FULL_AT_END and DUCTILED_TEST_FIELDS_DELAY_MS each stop the daemon at start-up with exit status 78 and a message
that names the setting and says the build has no test hooks; without them it starts."""
import os
import shutil
import subprocess
import tempfile

from dtserver import Daemon, run

EXIT_CONFIG = 78


def refused(binary, data, env=None, args=()):
    e = dict(os.environ, DUCTILED_DATA_DIR=data, DUCTILED_LISTEN="127.0.0.1:0", DUCTILED_GPUS="cpu")
    e.update(env or {})
    p = subprocess.run([binary, *args], env=e, capture_output=True, text=True, timeout=60)
    assert p.returncode == EXIT_CONFIG, (env, args, p.returncode, p.stderr)
    assert "is a test hook, and this build has none" in p.stderr, p.stderr
    return p.stderr


def main(binary):
    data = tempfile.mkdtemp(prefix="ductiled-nohooks-")
    try:
        print(refused(binary, data, {"DUCTILED_TEST_ITERATION_DELAY_MS": "10"}).strip())
        print(refused(binary, data, {"DUCTILED_TEST_FIELDS_DELAY_MS": "10"}).strip())
        print(refused(binary, data, {"DUCTILED_TEST_DISK_FULL_AT_END": "3"}).strip())
        conf = os.path.join(data, "ductiled.conf")
        with open(conf, "w") as f:
            f.write("test_iteration_delay_ms = 10\n")
        print(refused(binary, data, args=("--config", conf)).strip())
    finally:
        shutil.rmtree(data, ignore_errors=True)
    d = Daemon(binary)
    try:
        d.start()
        assert d.request("GET", "/v1/health").status == 200
        assert d.stop() == 0
    finally:
        d.cleanup()


if __name__ == "__main__":
    run(main)
